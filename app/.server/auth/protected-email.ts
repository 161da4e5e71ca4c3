import { codeOf, getIdentity, type AuthCode, type SendOobCodeRequest } from '~/.server/identity'
import { captchaTokenToSend, isCaptchaRefusal, recordCaptchaOutcome, refreshAfterDemand } from '~/.server/policy/recaptcha'

/** Off the response path: the page answers the same whatever happens (no enumeration). */
export function sendProtectedOobCode(
  request: Omit<SendOobCodeRequest, 'captchaResponse'> & { requestType: 'PASSWORD_RESET' | 'EMAIL_SIGNIN' },
  postedToken: string | undefined,
  failed: (code: AuthCode, captcha: 'refused' | null) => void,
): void {
  const captchaResponse = captchaTokenToSend('getOobCode', postedToken)
  const sent = captchaResponse !== undefined
  void getIdentity()
    .sendOobCode({ ...request, captchaResponse })
    .then(
      () => recordCaptchaOutcome('getOobCode', sent, null),
      (error: unknown) => {
        const code = codeOf(error)
        recordCaptchaOutcome('getOobCode', sent, code)
        const refused = isCaptchaRefusal(code)
        failed(code, refused ? 'refused' : null)
        if (refused) void refreshAfterDemand('getOobCode')
      },
    )
}
