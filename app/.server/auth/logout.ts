import { z } from 'zod'
import type { AppLoadContext } from '~/.server/context'
import { COOKIES, clearCookie, type CookieSpec } from '~/.server/cookies'
import { logger } from '~/.server/ops/logger'
import { securityEvent } from '~/.server/ops/security-events'
import { consumeLogout } from '~/.server/policy/rate-limit'
import { errorPage, redirectTo, unavailable, type Result } from '~/.server/result'
import { flowCookie } from './flow-state'
import { endEverySession, endThisSession, getSession } from './session'
import { syncToken } from './token-sync'

/**
 * POST /logout: "Log out" ends this browser's session record, so no copy of its cookie opens it
 * again; "Log out of all devices" (`everywhere`) also has the identity service revoke every session
 * of the account. Either way the answer clears this browser's session and flow cookies. Counted per
 * client like every post; a cookie with no live record writes nothing. While the session store
 * cannot be reached the answer is 503: the visitor is not told they are signed out when they are not.
 * Done, it answers 303 to GET /logout, which says so (ADR 071): a reload or Forward posts nothing again.
 */
export async function logOut(request: Request, everywhere: boolean, context: AppLoadContext): Promise<Result<never>> {
  const limit = await consumeLogout({ ip: context.clientIp, reqId: context.requestId })
  if (!limit.ok) return errorPage(429, 'rate-limited', { retryAfter: limit.retryAfterSeconds })
  const session = await getSession(request)
  if (session.status === 'unavailable' && !everywhere) return unavailable()
  try {
    if (session.status === 'signed-in' && everywhere) await endEverySession(session.user.uid)
    await endThisSession(request)
  } catch (error) {
    logger.warn({ event: 'logout-failed', err: (error as Error).message }, 'the session could not be ended')
    return unavailable()
  }
  if (session.status === 'signed-in') {
    securityEvent(everywhere ? 'logout-everywhere' : 'logout', {
      reqId: context.requestId,
      ip: context.clientIp,
      email: session.user.email ?? undefined,
    })
  }
  if (session.status !== 'invalid' || !session.tokenSyncTold) await syncToken(null)
  const done = logoutDone.write(request, everywhere ? 'everywhere' : 'here')
  return redirectTo(LOGOUT_PATH, { cookies: [...logoutCookies(), ...done] })
}

const LOGOUT_PATH = '/logout'
const logoutDone = flowCookie(COOKIES.logoutDone, z.enum(['here', 'everywhere']))

/** Where this browser's logout of the last 10 minutes signed out, here or on every device; null without one. */
export const lastLogout = (request: Request) => logoutDone.read(request)

/**
 * The Set-Cookie values of a logout: the session and every flow's cookie expire, from the
 * registry. The rest is left as it is: no `Clear-Site-Data: "cookies"`, which would also erase the
 * language, the privacy-notice answer and the device cookie, even when set again by the same
 * answer (ADR 028).
 */
export function logoutCookies(): string[] {
  return (Object.values(COOKIES) as CookieSpec[]).filter((cookie) => cookie.atLogout === 'clear').map(clearCookie)
}
