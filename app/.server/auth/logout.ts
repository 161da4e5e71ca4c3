import { COOKIES, clearCookie, type CookieSpec } from '~/.server/cookies'

/**
 * The Set-Cookie values of a logout: the session and every flow's cookie expire, from the
 * registry. The rest is left as it is: no `Clear-Site-Data: "cookies"`, which would also erase the
 * language, the privacy-notice answer and the device cookie, even when set again by the same
 * answer (ADR 028).
 */
export function logoutCookies(): string[] {
  return (Object.values(COOKIES) as CookieSpec[]).filter((cookie) => cookie.atLogout === 'clear').map(clearCookie)
}
