import { randomBytes } from 'node:crypto'
import { safeEqual, sign, signedBy } from '~/.server/keys'
import { COOKIES, getCookie, setCookie } from '~/.server/cookies'
import { CSRF_FIELD } from '~/lib/form-fields'

// The CSRF tokens, which every POST's guard (guardForm, result.ts) checks.
// Signed double-submit tokens: a cross-site page can neither read nor guess the
// value, and the HMAC stops a value planted by a sibling subdomain (cookie tossing).

export type CsrfRefusal = 'cookie-missing' | 'token-mismatch' | 'bad-origin' | 'cross-site'
export type CsrfResult = { ok: true } | { ok: false; reason: CsrfRefusal }

function isAuthentic(token: string): boolean {
  const [random, mac, ...rest] = token.split('.')
  return Boolean(random && mac && rest.length === 0 && signedBy('csrf', random, mac))
}

function mint(): { token: string; setCookie: string } {
  const random = randomBytes(32).toString('base64url')
  const token = `${random}.${sign('csrf', random)}`
  // A browser-session cookie: it lives as long as the forms it protects.
  return { token, setCookie: setCookie(COOKIES.csrf, token) }
}

/** It is also the binding of the flow cookies: a value sealed for one browser opens in no other. */
export function csrfBinding(request: Request): string | null {
  const existing = getCookie(request, COOKIES.csrf)
  return existing && isAuthentic(existing) ? existing : null
}

/** One token per request, so every loader of one response renders the same one. */
const issued = new WeakMap<Request, { token: string; setCookie: string | null }>()

export function issueCsrf(request: Request): { token: string; setCookie: string | null } {
  // Reusing the cookie keeps forms in other tabs valid; a token under a retired secret is replaced.
  const existing = csrfBinding(request)
  if (existing) return { token: existing, setCookie: null }
  const known = issued.get(request)
  if (known) return known
  const fresh = mint()
  issued.set(request, fresh)
  return fresh
}

/** A token seen before sign-in (shared computer, or planted) is worth nothing after it. */
export function rotateCsrf(): string {
  return mint().setCookie
}

/** `cookie-missing` usually means the browser blocks cookies, so it is told apart from a forged token. */
export function verifyCsrf(
  request: Request,
  form: FormData,
  { publicOrigin, origin }: { publicOrigin: string; origin: string | null },
): CsrfResult {
  const fetchSite = request.headers.get('Sec-Fetch-Site')
  if (fetchSite === 'cross-site') return { ok: false, reason: 'cross-site' }
  // No Origin at all is allowed (older browsers): the token still decides.
  // `Origin: null` also comes from our own no-referrer pages, which Sec-Fetch-Site tells apart.
  const sameOriginNull = origin === 'null' && fetchSite === 'same-origin'
  if (origin !== null && origin !== publicOrigin && !sameOriginNull) return { ok: false, reason: 'bad-origin' }
  const cookie = getCookie(request, COOKIES.csrf)
  if (!cookie) return { ok: false, reason: 'cookie-missing' }
  const field = form.get(CSRF_FIELD)
  if (typeof field !== 'string' || !safeEqual(field, cookie) || !isAuthentic(cookie)) {
    return { ok: false, reason: 'token-mismatch' }
  }
  return { ok: true }
}

// In another site's frame the portal's cookies are third-party (blocked,
// or SameSite=Lax), so its forms cannot work: the page warns first.
export function cookiesBlockedInFrame(request: Request): boolean {
  const dest = request.headers.get('sec-fetch-dest')
  if (dest !== 'iframe' && dest !== 'frame') return false
  const site = request.headers.get('sec-fetch-site')
  return site === 'cross-site' || (site === 'same-origin' && !getCookie(request, COOKIES.csrf))
}
