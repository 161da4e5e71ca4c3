import { getAuthorizedDomains, knownAuthorizedDomains } from './authorized-domains'
import { getConfig } from '~/.server/config'
import type { Platform } from '~/.server/config-schema'
import { allowedHostSources, checkRedirect, type RedirectCheck } from './redirect-policy'

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
 * Where to go after sign-in, from the `redirect` parameter: the policy in
 * redirect-policy.ts, with the identity project's authorizedDomains and REDIRECT_ALLOWED_ORIGINS.
 */
export async function resolveRedirect(raw: string | null, publicOrigin: string) {
  if (raw === null) return { kind: 'none' } as const
  const { redirectAllowedOrigins, platform } = getConfig()
  return checkRedirect(raw, {
    publicOrigin,
    allowedHosts: await getAuthorizedDomains(),
    allowedOrigins: redirectAllowedOrigins,
    allowLoopbackHosts: loopbackHostsAllowed(platform),
  })
}

/**
 * A redirect is followed, or carried on to the next step, only when the policy says ok; anything
 * else counts as no redirect. `keptRedirect`: the value as given, for a step that passes it on
 * (checked again there); `redirectTarget`: the URL the policy accepted, to go to.
 */
export function keptRedirect(raw: string | null, check: RedirectCheck): string | null {
  return check.kind === 'ok' ? raw : null
}

export async function acceptedRedirect(raw: string | null, publicOrigin: string): Promise<string | null> {
  return keptRedirect(raw, await resolveRedirect(raw, publicOrigin))
}

export async function redirectTarget(raw: string | null, publicOrigin: string): Promise<string | null> {
  const check = await resolveRedirect(raw, publicOrigin)
  return check.kind === 'ok' ? check.url : null
}

const DEVELOPMENT_PLATFORMS: readonly Platform[] = ['local', 'test', 'development']

/**
 * Whether loopback hosts among the authorizedDomains (every Firebase project lists localhost) may
 * receive redirects, SSO callbacks and form posts: on development platforms only (ADR 016). An
 * origin REDIRECT_ALLOWED_ORIGINS names is accepted on every platform.
 */
export function loopbackHostsAllowed(platform: Platform): boolean {
  return DEVELOPMENT_PLATFORMS.includes(platform)
}

/** Where to go when there is no `redirect`: DEFAULT_REDIRECT_URL, else `/` (the signed-in page). */
export function defaultRedirect(): string {
  return getConfig().defaultRedirectUrl ?? '/'
}

/**
 * Every origin a form post may be redirected to: whatever the redirect policy accepts (the identity
 * project's authorizedDomains as last read, REDIRECT_ALLOWED_ORIGINS) and DEFAULT_REDIRECT_URL. Pages
 * list them in CSP `form-action`, which browsers apply to the redirect that answers a form post: the
 * sign-in's, and the emailed sign-in link's whose target travelled in the email (ADR 005).
 */
export function formActionSources(publicOrigin: string): string[] {
  const { redirectAllowedOrigins, defaultRedirectUrl, platform } = getConfig()
  const sources = new Set<string>()
  for (const url of [...redirectAllowedOrigins, defaultRedirectUrl]) {
    const origin = url ? URL.parse(url)?.origin : undefined
    if (origin && origin !== 'null') sources.add(origin)
  }
  const allowLoopbackHosts = loopbackHostsAllowed(platform)
  for (const source of allowedHostSources(knownAuthorizedDomains(), { allowLoopbackHosts })) sources.add(source)
  sources.delete(publicOrigin)
  return [...sources]
}
