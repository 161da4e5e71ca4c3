import { getAuthorizedDomains } from './authorized-domains'
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
