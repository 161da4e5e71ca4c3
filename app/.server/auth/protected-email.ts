import { codeOf, getIdentity, type AuthCode, type SendOobCodeRequest } from '~/.server/identity'
import { isCaptchaRefusal } from '~/.server/identity/recaptcha'

/** Off the response path: the page answers the same whatever happens (no enumeration). */
export function sendProtectedOobCode(
  request: Omit<SendOobCodeRequest, 'captchaResponse'> & { requestType: 'PASSWORD_RESET' | 'EMAIL_SIGNIN' },
  postedToken: string | undefined,
  failed: (code: AuthCode, captcha: 'refused' | null) => void,
): void {
  void getIdentity()
    .sendOobCode({ ...request, captchaResponse: postedToken })
    .catch((error: unknown) => {
      const code = codeOf(error)
      failed(code, isCaptchaRefusal(code) ? 'refused' : null)
    })
}
