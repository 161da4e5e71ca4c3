import { COOKIES, clearCookie, getCookie, setCookie, type CookieKey } from '~/.server/cookies'
import { hasConsented } from '~/.server/preferences'
import { keepDeviceCookie } from '~/.server/policy/device'
import { isLocale } from '~/lib/i18n'

type Kept = { [K in CookieKey]: (typeof COOKIES)[K]['atLogout'] extends 'keep' ? K : never }[CookieKey]

/**
 * How each cookie the registry keeps at logout is set back: the visitor's preferences are no
 * secrets, and the device cookie (ADR 015) keeps this browser out of the per-account lock-out.
 * Null when this browser holds no value worth keeping.
 */
const KEEP: Record<Kept, (request: Request) => string | null> = {
  locale: (request) => {
    const locale = getCookie(request, COOKIES.locale)
    return isLocale(locale) ? setCookie(COOKIES.locale, locale) : null
  },
  consent: (request) => (hasConsented(request) ? setCookie(COOKIES.consent, '1') : null),
  device: keepDeviceCookie,
}

/**
 * The Set-Cookie values of a logout, which also sends `Clear-Site-Data: "cookies"`: from the
 * registry, in its order, each cookie is expired, set back, or left to that header.
 */
export function logoutCookies(request: Request): string[] {
  return (Object.keys(COOKIES) as CookieKey[]).flatMap((key) => {
    const cookie = COOKIES[key]
    if (cookie.atLogout === 'clear') return [clearCookie(cookie)]
    if (cookie.atLogout === 'drop') return []
    return [KEEP[key as Kept](request)].filter((value) => value !== null)
  })
}
