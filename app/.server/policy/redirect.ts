import { getAuthorizedDomains, knownAuthorizedDomains } from './authorized-domains'
import { getConfig } from '~/.server/config'
import type { Platform } from '~/.server/config-schema'
import { allowedHostSources, checkRedirect } from './redirect-policy'

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
 * A `redirect` the policy accepted: `param` as it was given, to carry on in links and sealed
 * cookies; `url`, the re-serialised URL the policy accepted, to go to. It is made here only, where
 * the value comes in (a query, a form, a sealed cookie or an emailed link read back), and trusted
 * after: the end of a sign-in goes to `url` without checking again.
 */
export interface CheckedRedirect {
  readonly param: string
  readonly url: string
}

export type RedirectParam =
  { kind: 'none' } | { kind: 'missing' } | { kind: 'invalid' } | { kind: 'ok'; redirect: CheckedRedirect }

/**
 * The one check of a `redirect`: the policy in redirect-policy.ts, with the identity project's
 * authorizedDomains and REDIRECT_ALLOWED_ORIGINS. `missing` and `invalid` are for the page to say.
 */
export async function checkRedirectParam(raw: string | null, publicOrigin: string): Promise<RedirectParam> {
  if (raw === null) return { kind: 'none' }
  const { redirectAllowedOrigins, platform } = getConfig()
  const check = checkRedirect(raw, {
    publicOrigin,
    allowedHosts: await getAuthorizedDomains(),
    allowedOrigins: redirectAllowedOrigins,
    allowLoopbackHosts: loopbackHostsAllowed(platform),
  })
  return check.kind === 'ok' ? { kind: 'ok', redirect: { param: raw, url: check.url } } : check
}

/** The redirect when the policy accepts it; anything else counts as none. */
export async function checkedRedirect(raw: string | null, publicOrigin: string): Promise<CheckedRedirect | null> {
  const check = await checkRedirectParam(raw, publicOrigin)
  return check.kind === 'ok' ? check.redirect : null
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
