import type { AppLoadContext } from '~/.server/context'
import { codeOf, getIdentity } from '~/.server/identity'
import { getRateLimits } from '~/.server/policy/rate-limit'
import { captchaSettings, isCaptchaRefusal } from '~/.server/identity/recaptcha'
import { retryAtAfter } from '~/lib/limits'
import { whoOf } from '../session'
import { accountOf, chosenFactor, epochSecondsNow, recordOutcome, type Pending } from './pending'

export async function sendSms(p: Pending, context: AppLoadContext, captchaResponse?: string): Promise<void> {
  const factor = chosenFactor(p)
  if (factor?.kind !== 'phone') return
  // The page's script could not load the check, so the service would refuse.
  if (p.captcha && captchaResponse === '') {
    p.notice = 'mfa.checkFailed'
    return
  }
  const who = { ...whoOf(context), pending: p.id, account: accountOf(p), phone: factor.id }
  const limit = await getRateLimits().consumeMfaSms(who)
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
      p.captcha = captchaSettings('mfaSmsSignIn') !== null
      p.notice = p.captcha ? null : 'mfa.sendFailed'
      recordOutcome(p, 'captcha')
      return
    }
    p.notice = code === 'auth/too-many-requests' ? 'error.tooManyRequests' : 'mfa.sendFailed'
    recordOutcome(p, 'error')
  }
}
