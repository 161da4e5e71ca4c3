import { getAuthorizedDomains, knownAuthorizedDomains } from './authorized-domains'
import { getConfig } from './config'
import { checkRedirect } from './redirect-policy'

/**
 * A path on our own origin, or the fallback: used for "come back here" fields that
 * only ever point inside the portal (language switch, consent notice).
 */
export function localPathOr(value: unknown, fallback = '/'): string {
  if (typeof value !== 'string' || value.length > 2048) return fallback
  // Refuse control characters and backslashes before parsing: browsers treat "\" as "/".
  // eslint-disable-next-line no-control-regex
  if (!value.startsWith('/') || /[\u0000-\u001f\u007f\\]/.test(value)) return fallback
  const base = 'http://portal.invalid'
  try {
    const url = new URL(value, base)
    // Dot segments can collapse to `//host` ('/.//evil.com'), which a browser reads as another site.
    if (url.origin !== base || url.pathname.startsWith('//')) return fallback
    return url.pathname + url.search
  } catch {
    return fallback
  }
}

/**
 * Where to go after sign-in, from the `redirect` parameter (seed section 2): the policy in
 * redirect-policy.ts, with the identity project's authorizedDomains and REDIRECT_ALLOWED_ORIGINS.
 */
export async function resolveRedirect(raw: string | null, publicOrigin: string) {
  if (raw === null) return { kind: 'none' } as const
  const { redirectAllowedOrigins } = getConfig()
  return checkRedirect(raw, {
    publicOrigin,
    allowedHosts: await getAuthorizedDomains(),
    allowedOrigins: redirectAllowedOrigins,
  })
}

/** Where to go when there is no `redirect`: DEFAULT_REDIRECT_URL, else `/` (the signed-in page). */
export function defaultRedirect(): string {
  return getConfig().defaultRedirectUrl ?? '/'
}

/**
 * The other origins a form post from this page may be redirected to: the checked `redirect` target
 * and DEFAULT_REDIRECT_URL. The page's CSP `form-action` lists them, since browsers apply it to the
 * redirect that follows a form post (ADR 005).
 */
export function redirectOriginsFor(search: URLSearchParams, publicOrigin: string): string[] {
  const { redirectAllowedOrigins, defaultRedirectUrl } = getConfig()
  const policy = { publicOrigin, allowedHosts: knownAuthorizedDomains(), allowedOrigins: redirectAllowedOrigins }
  const origins = new Set<string>()
  for (const raw of [search.get('redirect'), defaultRedirectUrl]) {
    const target = raw ? checkRedirect(raw, policy) : null
    if (target?.kind === 'ok') origins.add(new URL(target.url).origin)
  }
  origins.delete(publicOrigin)
  return [...origins]
}
