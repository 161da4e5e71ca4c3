import { z } from 'zod'
import type { AppLoadContext } from '~/.server/context'
import { COOKIES, clearCookie, type CookieSpec } from '~/.server/cookies'
import { logger, securityEvent } from '~/.server/ops/logger'
import { getRateLimits } from '~/.server/policy/rate-limit'
import { errorPage, redirectTo, unavailable, type Result } from '~/.server/result'
import { flowCookie } from './flow-state'
import { revokeSessions } from './identity-admin'
import { endThisSession, getSession, syncToken, whoOf } from './session'

// Answers 503 while the store is down: the visitor must not be told they
// are signed out when they are not. Then 303 to GET /logout (see ADR 071).
export async function logOut(request: Request, everywhere: boolean, context: AppLoadContext): Promise<Result<never>> {
  const limit = await getRateLimits().consumeLogout(whoOf(context))
  if (!limit.ok) return errorPage(429, 'rate-limited', { retryAfter: limit.retryAfterSeconds })
  const session = await getSession(request)
  if (session.status === 'unavailable' && !everywhere) return unavailable()
  try {
    if (session.status === 'signed-in' && everywhere) await revokeSessions(session.user.uid)
    await endThisSession(request)
  } catch (error) {
    logger.warn({ event: 'logout-failed', err: (error as Error).message }, 'the session could not be ended')
    return unavailable()
  }
  if (session.status === 'signed-in') {
    securityEvent(everywhere ? 'logout-everywhere' : 'logout', whoOf(context, session.user.email))
  }
  if (session.status !== 'invalid' || !session.tokenSyncTold) await syncToken(null)
  const done = logoutDone.write(request, everywhere ? 'everywhere' : 'here')
  return redirectTo('/logout', { cookies: [...logoutCookies(), ...done] })
}

const logoutDone = flowCookie(COOKIES.logoutDone, z.enum(['here', 'everywhere']))

export const lastLogout = (request: Request) => logoutDone.read(request)

// No Clear-Site-Data: "cookies": it would also erase the language,
// the privacy answer and the device cookie (see ADR 028).
export function logoutCookies(): string[] {
  return (Object.values(COOKIES) as CookieSpec[]).filter((cookie) => cookie.atLogout === 'clear').map(clearCookie)
}
