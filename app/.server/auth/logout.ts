import type { AppLoadContext } from '~/.server/context'
import { COOKIES, clearCookie, type CookieSpec } from '~/.server/cookies'
import { securityEvent } from '~/.server/ops/security-events'
import { page, type Page } from '~/.server/result'
import { getEndedSessions } from './ended-sessions'
import { getSession, longestSession, readSessionCookie, revokeSessions } from './session'
import { syncToken } from './token-sync'

/**
 * POST /logout: "Log out of all devices" (`everywhere`) revokes every session of the account; "Log
 * out" ends this one only (its cookie is refused from now on, even replayed), and the account's
 * other devices go on. Either way the answer clears this browser's session and flow cookies.
 */
export async function logOut(
  request: Request,
  everywhere: boolean,
  context: AppLoadContext,
): Promise<Page<{ done: true; everywhere: boolean }>> {
  const session = await getSession(request)
  if (session.status === 'signed-in') {
    if (everywhere) await endEverySession(session.user.uid).catch(() => undefined)
    securityEvent(everywhere ? 'logout-everywhere' : 'logout', {
      reqId: context.requestId,
      ip: context.clientIp,
      email: session.user.email ?? undefined,
    })
  }
  // Refused from now on even when the service could not be asked, or after a revocation.
  await endThisSession(request).catch(() => undefined)
  if (session.status !== 'invalid' || !session.tokenSyncTold) await syncToken(null)
  return page({ done: true as const, everywhere }, { cookies: logoutCookies() })
}

/**
 * The Set-Cookie values of a logout: the session and every flow's cookie expire, from the
 * registry. The rest is left as it is: no `Clear-Site-Data: "cookies"`, which would also erase the
 * language, the privacy-notice answer and the device cookie, even when set again by the same
 * answer (ADR 028).
 */
export function logoutCookies(): string[] {
  return (Object.values(COOKIES) as CookieSpec[]).filter((cookie) => cookie.atLogout === 'clear').map(clearCookie)
}

/**
 * "Log out": ends this browser's session only. Its cookie is refused from now on, until it would
 * have expired (its `exp`, read unverified, at most the longest session lifetime from now); the account's other
 * sessions go on. The answer still sends logoutCookies().
 */
export async function endThisSession(request: Request): Promise<void> {
  const cookie = readSessionCookie(request)
  if (!cookie) return
  const longest = Date.now() + longestSession() * 1000
  await getEndedSessions().end(cookie, Math.min(longest, expiryOf(cookie) ?? longest))
}

/** "Log out of all devices": every session and refresh token of the account ends, everywhere. */
export async function endEverySession(uid: string): Promise<void> {
  await revokeSessions(uid)
}

function expiryOf(cookie: string): number | null {
  try {
    const { exp } = JSON.parse(Buffer.from(cookie.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: unknown
    }
    return typeof exp === 'number' ? exp * 1000 : null
  } catch {
    return null
  }
}
