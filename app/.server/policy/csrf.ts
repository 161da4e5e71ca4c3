import { randomBytes } from 'node:crypto'
import { data } from 'react-router'
import type { AppLoadContext } from '~/.server/context'
import { getConfig } from '~/.server/config'
import { safeEqual, sign, signedBy } from '~/.server/cookie-format'
import { COOKIES, cookieName, getCookie, setCookie } from '~/.server/cookies'
import { securityEvent } from '~/.server/ops/security-events'
import { CSRF_FIELD } from '~/lib/form-fields'
import { NO_STORE } from '~/lib/headers'

/**
 * Signed double-submit CSRF tokens, plus Origin / Sec-Fetch-Site checks, and guardForm: the one
 * guard every form post goes through.
 *
 * The cookie holds `random.hmac`; every form repeats it in a hidden field. A cross-site page can
 * neither read the cookie nor guess the value, and the HMAC stops a value planted by a sibling
 * subdomain (cookie tossing) unless it was minted by this server. The `__Host-` prefix over https
 * stops sibling subdomains from setting the cookie at all.
 */

export function csrfCookieName(): string {
  return cookieName(COOKIES.csrf)
}

export type CsrfRefusal = 'cookie-missing' | 'token-mismatch' | 'bad-origin' | 'cross-site'
export type CsrfResult = { ok: true } | { ok: false; reason: CsrfRefusal }

/** True when the token was minted by this server under any configured secret's CSRF key (rotation). */
function isAuthentic(token: string): boolean {
  const [random, mac, ...rest] = token.split('.')
  return Boolean(random && mac && rest.length === 0 && signedBy('csrf', random, mac))
}

function mint(): { token: string; setCookie: string } {
  const random = randomBytes(32).toString('base64url')
  const token = `${random}.${sign('csrf', random)}`
  // A browser-session cookie (no Max-Age): it lives as long as the forms it protects.
  return { token, setCookie: setCookie(COOKIES.csrf, token) }
}

/**
 * The authentic token this browser holds, or null. It is also the binding of the flow cookies
 * (app/.server/auth/flow-state.ts, ADR 017): a value sealed for one browser opens in no other.
 */
export function csrfBinding(request: Request): string | null {
  const existing = getCookie(request, COOKIES.csrf)
  return existing && isAuthentic(existing) ? existing : null
}

/** One token per request, so that every loader of one response renders and binds the same one. */
const issued = new WeakMap<Request, { token: string; setCookie: string | null }>()

/** The token to render in forms; `setCookie` is the Set-Cookie value to add when a new one was minted. */
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

/**
 * A new token at sign-in, so that a token seen before (on a shared computer, or planted) is worth
 * nothing once someone signs in. The Set-Cookie goes with the sign-in's response.
 */
export function rotateCsrf(): string {
  return mint().setCookie
}

/**
 * Checks a state-changing form post. `cookie-missing` usually means the browser blocks cookies
 * (the caller shows the third-party-cookie notice), so it is told apart from a forged token.
 */
export function verifyCsrf(
  request: Request,
  form: FormData,
  { publicOrigin, origin }: { publicOrigin: string; origin: string | null },
): CsrfResult {
  const fetchSite = request.headers.get('Sec-Fetch-Site')
  if (fetchSite === 'cross-site') return { ok: false, reason: 'cross-site' }
  // No Origin at all is allowed (older browsers on same-origin posts): the token still decides.
  // `Origin: null` comes from sandboxed frames and data: URLs, but also from our own pages served
  // with `Referrer-Policy: no-referrer` (the reset pages): Sec-Fetch-Site tells them apart.
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

/**
 * The page is loaded into a frame whose cookies the browser keeps from the portal: another site's
 * frame (its first page comes cross-site; the next ones come from the portal's own page in it
 * without the CSRF cookie that page set). There the portal's cookies are third-party ones
 * (SameSite=Lax, third-party cookie blocking), so its forms cannot work: the page warns first.
 */
export function cookiesBlockedInFrame(request: Request): boolean {
  const dest = request.headers.get('sec-fetch-dest')
  if (dest !== 'iframe' && dest !== 'frame') return false
  const site = request.headers.get('sec-fetch-site')
  return site === 'cross-site' || (site === 'same-origin' && !getCookie(request, COOKIES.csrf))
}

export interface GuardedForm {
  form: FormData
}

/**
 * Every POST goes through here: the body is read once, the CSRF token and the request's origin
 * are checked (ADR 007). A refusal is a 403 the error page explains; nothing has changed.
 */
export async function guardForm(request: Request, context: AppLoadContext): Promise<GuardedForm> {
  refuseOversizedBody(context)
  let form: FormData
  try {
    form = await request.formData()
  } catch {
    throw data({ reason: 'bad-form' }, { status: 400 })
  }
  const verdict = verifyCsrf(request, form, { publicOrigin: context.publicOrigin, origin: context.requestOrigin })
  if (!verdict.ok) {
    securityEvent('csrf-refused', { reqId: context.requestId, ip: context.clientIp, reason: verdict.reason })
    // The error page has no loader data to read the help link from: it travels with the refusal, and
    // whether the form was in another site's frame, where the portal's cookies are third-party ones.
    const help =
      verdict.reason === 'cookie-missing'
        ? { cookiesHelpUrl: getConfig().cookiesHelpUrl, framed: request.headers.get('sec-fetch-dest') === 'iframe' }
        : {}
    throw data({ reason: verdict.reason, ...help }, { status: 403 })
  }
  return { form }
}

/** A body over the limit was refused by the HTTP server, none of it handed on (app/.server/http/body-limit.ts): the 413 page. */
export function refuseOversizedBody(context: AppLoadContext) {
  if (context.bodyTooLarge) throw data({ reason: 'too-large' }, { status: 413, headers: NO_STORE })
}
