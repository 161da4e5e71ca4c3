import type { AppLoadContext } from '~/.server/context'
import type { Locale } from '~/lib/i18n'
import { getConfig } from '~/.server/config'
import { logger, securityEvent } from '~/.server/ops/logger'
import { metrics } from '~/.server/ops/metrics'
import { deviceIdFor, getRateLimits } from '~/.server/policy/rate-limit'
import { captchaTokenMissing } from '~/.server/identity/recaptcha'
import { continueUrlFor } from '~/.server/auth/continue-url'
import { rememberSent } from '~/.server/auth/email-sent'
import { sendProtectedOobCode } from '~/.server/auth/protected-email'
import { whoOf } from '~/.server/auth/session'
import { page, redirectTo, type Result } from '~/.server/result'

/** Same answer, in the same time, whether the account exists or not: the email goes off the response path. */
export async function requestPasswordReset(
  request: Request,
  input: { email: string; locale: Locale; redirect: string | null; captchaResponse?: string },
  context: AppLoadContext,
): Promise<Result<{ email: string; formError: 'error.captchaNeedsJs' }>> {
  if (captchaTokenMissing('getOobCode', input.captchaResponse)) {
    return page({ email: input.email, formError: 'error.captchaNeedsJs' }, { status: 400 })
  }
  const sent = redirectTo(
    `/forgot-password?${new URLSearchParams({ sent: '1', ...(input.redirect ? { redirect: input.redirect } : {}) })}`,
    { cookies: rememberSent(request, input.email) },
  )
  // The owner's usual browser has its own reset budget, so strangers cannot use it up (see ADR 027).
  const device = deviceIdFor(request, input.email)
  const limit = await getRateLimits().consumeReset({ ...whoOf(context), email: input.email, device })
  metrics.passwordResetRequests.inc({ outcome: limit.ok ? 'accepted' : 'limited' })
  if (!limit.ok) {
    if (getConfig().platform === 'local') {
      const minutes = Math.ceil(limit.retryAfterSeconds / 60)
      logger.warn(
        { event: 'reset-limited', reqId: context.requestId },
        `Reset email NOT sent: the reset limit was reached (RATE_LIMIT_RESET_PER_EMAIL or _PER_DEVICE, RATE_LIMIT_RESET_PER_IP); next one possible in ${minutes} min`,
      )
    }
    return sent
  }
  securityEvent('reset-requested', whoOf(context, input.email))
  sendProtectedOobCode(
    {
      requestType: 'PASSWORD_RESET',
      email: input.email,
      continueUrl: continueUrlFor(input.redirect),
      locale: input.locale,
    },
    input.captchaResponse,
    (code, captcha) => {
      // An unknown address is only debug: enumeration probes send those.
      const entry = { event: 'reset-email-failed', code, reqId: context.requestId, ...(captcha ? { captcha } : {}) }
      if (captcha) logger.warn(entry, 'reset email not sent: the reCAPTCHA check refused it')
      else logger[code === 'auth/user-not-found' ? 'debug' : 'warn'](entry, 'reset email not sent')
    },
  )
  return sent
}
