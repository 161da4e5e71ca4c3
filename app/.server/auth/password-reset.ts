import type { AppLoadContext } from '~/.server/context'
import type { Locale } from '~/lib/i18n'
import { getConfig } from '~/.server/config'
import { logger } from '~/.server/ops/logger'
import { recordPasswordResetRequest } from '~/.server/ops/metrics'
import { securityEvent } from '~/.server/ops/security-events'
import { consumeReset, deviceIdFor } from '~/.server/policy/rate-limit'
import { captchaTokenMissing, recordCaptchaOutcome } from '~/.server/policy/recaptcha'
import { continueUrlFor } from './continue-url'
import { rememberSent } from './email-sent'
import { sendProtectedOobCode } from './protected-email'
import { page, redirectTo, type Result } from '~/.server/result'

/**
 * The reset request answers the same, in the same time, whether the account exists or not: the
 * email is sent off the response path, and a refused one (rate limit) is simply not sent. So is
 * one the reCAPTCHA check refuses (a token it does not take): the log says so (ADR 020).
 * `captchaResponse` is what the form posted, as for a sign-in (app/.server/auth/sign-in.ts).
 * Under ENFORCE without a token (no JavaScript) nothing is asked: the page says it needs
 * JavaScript, as the sign-in does, for every address alike (ADR 028).
 * Sent or not, the answer is the page saying it was (post-redirect-get: a refresh sends nothing).
 */
export async function requestPasswordReset(
  request: Request,
  input: { email: string; locale: Locale; redirect: string | null; captchaResponse?: string },
  context: AppLoadContext,
): Promise<Result<{ email: string; formError: 'error.captchaNeedsJs' }>> {
  if (captchaTokenMissing('getOobCode', input.captchaResponse)) {
    recordCaptchaOutcome('getOobCode', false, 'auth/missing-recaptcha-token')
    return page({ email: input.email, formError: 'error.captchaNeedsJs' }, { status: 400 })
  }
  const sent = redirectTo(
    `/forgot-password?${new URLSearchParams({ sent: '1', ...(input.redirect ? { redirect: input.redirect } : {}) })}`,
    { cookies: rememberSent(request, input.email) },
  )
  // The owner's usual browser has a reset budget of its own: strangers cannot use it up (ADR 027).
  const device = deviceIdFor(request, input.email)
  const limit = await consumeReset({ ip: context.clientIp, email: input.email, device, reqId: context.requestId })
  recordPasswordResetRequest(limit.ok ? 'accepted' : 'limited')
  if (!limit.ok) {
    // The page answers as if sent (no enumeration); someone trying the portal locally should know why nothing came.
    if (getConfig().platform === 'local') {
      const minutes = Math.ceil(limit.retryAfterSeconds / 60)
      logger.warn(
        { event: 'reset-limited', reqId: context.requestId },
        `Reset email NOT sent: the reset limit was reached (RATE_LIMIT_RESET_PER_EMAIL or _PER_DEVICE, RATE_LIMIT_RESET_PER_IP); next one possible in ${minutes} min`,
      )
    }
    return sent
  }
  securityEvent('reset-requested', { reqId: context.requestId, ip: context.clientIp, email: input.email })
  sendProtectedOobCode(
    {
      requestType: 'PASSWORD_RESET',
      email: input.email,
      continueUrl: continueUrlFor(input.redirect),
      locale: input.locale,
    },
    input.captchaResponse,
    (code, captcha) => {
      // An unknown address is not an error worth more than debug: it is what enumeration probes send.
      const entry = { event: 'reset-email-failed', code, reqId: context.requestId, ...(captcha ? { captcha } : {}) }
      if (captcha) logger.warn(entry, 'reset email not sent: the reCAPTCHA check refused it')
      else logger[code === 'auth/user-not-found' ? 'debug' : 'warn'](entry, 'reset email not sent')
    },
  )
  return sent
}
