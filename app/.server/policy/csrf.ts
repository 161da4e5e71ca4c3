import { randomBytes } from 'node:crypto'
import { data } from 'react-router'
import type { AppLoadContext } from '~/.server/context'
import { getConfig } from '~/.server/config'
import { safeEqual, sign, signedBy } from '~/.server/keys'
import { COOKIES, cookieName, getCookie, setCookie } from '~/.server/cookies'
import { securityEvent } from '~/.server/ops/logger'
import { CSRF_FIELD } from '~/lib/form-fields'
import { formText } from '~/lib/form-text'
import { NO_STORE } from '~/lib/headers'
import { CAPTCHA_TOKEN_FIELD } from '~/lib/recaptcha'
import { checkRedirectParam, type RedirectParam } from './redirect'

// The CSRF tokens, and guardForm below, which every POST goes through.
// Signed double-submit tokens: a cross-site page can neither read nor guess the
// value, and the HMAC stops a value planted by a sibling subdomain (cookie tossing).

export function csrfCookieName(): string {
  return cookieName(COOKIES.csrf)
}

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

/** What a form post brings once it is let in. */
export interface GuardedForm {
  form: FormData
  /** The posted `redirect` field against the redirect policy; `none` when the form has none. */
  redirect: RedirectParam
  /** The reCAPTCHA token the page's script added: undefined when there is none. */
  captchaResponse: string | undefined
}

/**
 * Every POST goes through here (see ADR 007): the body's bound, the form, the CSRF check (origin and token);
 * then what any form may carry: a redirect, checked, and a reCAPTCHA token.
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
    // The error page has no loader data: the help link travels with the refusal.
    const help =
      verdict.reason === 'cookie-missing'
        ? { cookiesHelpUrl: getConfig().cookiesHelpUrl, framed: request.headers.get('sec-fetch-dest') === 'iframe' }
        : {}
    throw data({ reason: verdict.reason, ...help }, { status: 403 })
  }
  const redirect = await checkRedirectParam(form.has('redirect') ? formText(form, 'redirect') : null, context.publicOrigin)
  return { form, redirect, captchaResponse: postedCaptchaToken(form) }
}

/** Real tokens are about 2 KB. */
const CAPTCHA_TOKEN_MAX_LENGTH = 8192

/** The reCAPTCHA token the page's script added. undefined: no script ran (JavaScript off); '': it got no token. */
export function postedCaptchaToken(form: FormData, field = CAPTCHA_TOKEN_FIELD): string | undefined {
  const value = form.get(field)
  if (value === null) return undefined
  return typeof value === 'string' && value.length <= CAPTCHA_TOKEN_MAX_LENGTH ? value : ''
}

export function refuseOversizedBody(context: AppLoadContext) {
  if (context.bodyTooLarge) throw data({ reason: 'too-large' }, { status: 413, headers: NO_STORE })
}
