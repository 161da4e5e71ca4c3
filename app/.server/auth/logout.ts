import { COOKIES, clearCookie, type CookieSpec } from '~/.server/cookies'
import { getEndedSessions } from './ended-sessions'
import { longestSession, readSessionCookie, revokeSessions } from './session'

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
 * sessions go on. The route still sends logoutCookies().
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
