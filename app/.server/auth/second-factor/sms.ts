import type { AppLoadContext } from '~/.server/context'
import { codeOf, getIdentity } from '~/.server/identity'
import { consumeMfaSms } from '~/.server/policy/rate-limit'
import { captchaSettings, isCaptchaRefusal, refreshAfterDemand } from '~/.server/policy/recaptcha'
import { retryAtAfter } from '~/lib/limits'
import { accountOf, chosenFactor, epochSecondsNow, recordOutcome, type Pending } from './pending'

/**
 * Sends an SMS code to the chosen phone (mfaSignIn:start), after taking the SMS limits. The
 * pending sign-in is updated in place: its new session, or why no code went. Where the project
 * demands reCAPTCHA for SMS (ADR 020), the start is refused without a token for the action
 * mfaSmsSignIn: the step then offers a 'Send code' button that gets one (captchaSettings).
 */
export async function sendSms(p: Pending, context: AppLoadContext, captchaResponse?: string): Promise<void> {
  const factor = chosenFactor(p)
  if (factor?.kind !== 'phone') return
  // The page ran the check and got no token: its script could not load. The service would refuse.
  if (p.captcha && captchaResponse === '') {
    p.notice = 'mfa.checkFailed'
    return
  }
  // After the first factor the service shows the number masked: the phone is known by its enrollment.
  const limit = await consumeMfaSms({
    ip: context.clientIp,
    pending: p.id,
    account: accountOf(p),
    phone: factor.id,
    reqId: context.requestId,
  })
  if (!limit.ok) {
    p.notice = 'mfa.smsLimitedAt'
    p.retryAt = retryAtAfter(limit.retryAfterSeconds)
    recordOutcome(p, 'limited')
    return
  }
  try {
    const { sessionInfo } = await getIdentity().startMfaSignIn({
      pendingCredential: p.credential,
      enrollmentId: factor.id,
      captchaResponse,
    })
    await limit.release('failure') // a code was sent: it counts
    p.session = sessionInfo
    p.sentAt = epochSecondsNow()
    p.captcha = false
    recordOutcome(p, 'sent')
  } catch (error) {
    await limit.release('no-verdict')
    const code = codeOf(error)
    if (isCaptchaRefusal(code)) {
      // Enforcement may have come on since we last asked: the page needs the site key now.
      await refreshAfterDemand('mfaSmsSignIn')
      p.captcha = captchaSettings('mfaSmsSignIn') !== null
      p.notice = p.captcha ? null : 'mfa.sendFailed'
      recordOutcome(p, 'captcha')
      return
    }
    p.notice = code === 'auth/too-many-requests' ? 'error.tooManyRequests' : 'mfa.sendFailed'
    recordOutcome(p, 'error')
  }
}
