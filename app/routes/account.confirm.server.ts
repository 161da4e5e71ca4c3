import type { AppLoadContext } from '~/.server/context'
import { codeOf, getIdentity, mfaRequiredOf } from '~/.server/identity'
import { messageOf, signInRefused } from '~/.server/auth/code-messages'
import { securityEvent } from '~/.server/ops/logger'
import { deviceIdFor, getRateLimits } from '~/.server/policy/rate-limit'
import { page, redirectTo, type Result } from '~/.server/result'
import type { TranslationKey } from '~/lib/i18n'
import { retryAtAfter } from '~/lib/limits'
import type { CaptchaSettings } from '~/lib/recaptcha'
import { afterConfirmation, type AfterConfirmation } from '~/.server/auth/recent-login'
import { beginSecondFactor } from '~/.server/auth/second-factor'
import { whoOf, type SessionUser } from '~/.server/auth/session'

export interface ConfirmRefusal {
  formError: TranslationKey
  retryAt?: number
  captcha: CaptchaSettings | null
}

/** Counts in sign-in's limits and takes a captcha token as sign-in does: a wrong password here is a failed sign-in. */
export async function confirmPassword(
  request: Request,
  user: SessionUser,
  input: { password: string; captchaResponse?: string },
  after: AfterConfirmation,
  context: AppLoadContext,
): Promise<Result<ConfirmRefusal>> {
  const email = user.email
  if (!email) return refused(403, 'confirm.noPassword')
  const who = { ...whoOf(context), email }
  const limit = await getRateLimits().consumeSignIn({ ...who, device: deviceIdFor(request, email) })
  if (!limit.ok) return refused(429, 'error.tooManyRequestsAt', { retryAfter: limit.retryAfterSeconds })
  let answer: { idToken: string; localId: string }
  try {
    answer = await getIdentity().signInWithPassword(email, input.password, { captchaResponse: input.captchaResponse })
  } catch (error) {
    const mfa = mfaRequiredOf(error)
    if (mfa) {
      await limit.release('no-verdict')
      const confirm = { uid: user.uid, ...after }
      const step = await beginSecondFactor(
        request,
        { mfa, method: 'password', email, redirect: null, remember: user.remembered, confirm },
        context,
      )
      return redirectTo(step.location, { cookies: step.setCookies })
    }
    const code = codeOf(error)
    securityEvent('recent-login-failure', { ...who, code })
    const refusal = await signInRefused(code, limit, input.captchaResponse)
    const message = refusal.message === 'error.wrongCredentials' ? 'confirm.wrongPassword' : refusal.message
    return refused(refusal.status, message, { captcha: refusal.captcha })
  }
  const confirmed = answer.localId === user.uid ? await afterConfirmation(request, user, answer.idToken, after, context) : null
  if (!confirmed) {
    await limit.release('no-verdict')
    securityEvent('recent-login-failure', { ...who, code: 'auth/user-mismatch' })
    const { key, status } = messageOf('auth/user-mismatch')
    return refused(status, key)
  }
  await limit.release('success')
  securityEvent('recent-login', who)
  return redirectTo(confirmed.location, { cookies: confirmed.setCookies })
}

function refused(
  status: number,
  formError: TranslationKey,
  extras: { captcha?: CaptchaSettings; retryAfter?: number } = {},
): Result<ConfirmRefusal> {
  const retryAt = extras.retryAfter ? { retryAt: retryAtAfter(extras.retryAfter) } : {}
  return page({ formError, captcha: extras.captcha ?? null, ...retryAt }, { status, retryAfter: extras.retryAfter })
}
