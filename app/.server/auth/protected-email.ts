import { codeOf, getIdentity, type AuthCode, type SendOobCodeRequest } from '~/.server/identity'
import { captchaTokenToSend, isCaptchaRefusal, recordCaptchaOutcome, refreshAfterDemand } from '~/.server/policy/recaptcha'

/**
 * Sends a reset email or a sign-in link (sendOobCode, reCAPTCHA action getOobCode), off the
 * response path: the page answers the same whatever happens (no enumeration). The posted token
 * goes with it while the project has reCAPTCHA on (ADR 020). `failed` is told the code of a
 * failure, and `'refused'` when it was the reCAPTCHA check that refused the call.
 */
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
        // Enforcement turned on since we last asked: the next page gets the script.
        if (refused) void refreshAfterDemand('getOobCode')
      },
    )
}
