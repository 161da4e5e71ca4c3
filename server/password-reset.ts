import type { AppLoadContext } from '@remix-run/node'
import type { Locale } from '~/lib/i18n'
import { getConfig } from './config'
import { expireCookie, openSealedCookie, sealedCookie } from './cookies'
import { getIdentity, isIdentityError } from './identity'
import { logger } from './observability/logger'
import { recordPasswordResetRequest } from './observability/metrics'
import { securityEvent } from './observability/security-events'
import { consumeReset } from './rate-limit'

/**
 * The reset request answers the same, in the same time, whether the account exists or not: the
 * email is sent off the response path, and a refused one (rate limit) is simply not sent.
 */
export async function requestPasswordReset(
  input: { email: string; locale: Locale; redirect: string | null },
  context: AppLoadContext,
): Promise<void> {
  const limit = await consumeReset({ ip: context.clientIp, email: input.email, reqId: context.requestId })
  recordPasswordResetRequest(limit.ok ? 'accepted' : 'limited')
  if (!limit.ok) return
  securityEvent('reset-requested', { reqId: context.requestId, ip: context.clientIp, email: input.email })
  const continueUrl = new URL('/', getConfig().publicOrigin)
  if (input.redirect) continueUrl.searchParams.set('redirect', input.redirect)
  void getIdentity()
    .sendOobCode({ requestType: 'PASSWORD_RESET', email: input.email, continueUrl: continueUrl.href, locale: input.locale })
    .catch((error: unknown) => {
      const code = isIdentityError(error) ? error.code : 'auth/internal-error'
      // An unknown address is not an error worth more than debug: it is what enumeration probes send.
      logger[code === 'auth/user-not-found' ? 'debug' : 'warn']({ event: 'reset-email-failed', code, reqId: context.requestId }, 'reset email not sent')
    })
}

/**
 * The emailed code leaves the address bar after the first visit: it is kept in a short-lived,
 * signed, HttpOnly cookie (ADR 009). Path=/ because Remix's data requests go to
 * `/new-password.data`, which a `/new-password` path would not match.
 */
const RESET_COOKIE = 'reset_code'
const RESET_COOKIE_MAX_AGE = 60 * 60

export function resetCodeCookie(oobCode: string): string {
  return sealedCookie(RESET_COOKIE, 'reset-code', oobCode, RESET_COOKIE_MAX_AGE)
}

export function clearResetCodeCookie(): string {
  return expireCookie(RESET_COOKIE)
}

export function readResetCode(request: Request): string | null {
  return openSealedCookie(request, RESET_COOKIE, 'reset-code')
}
