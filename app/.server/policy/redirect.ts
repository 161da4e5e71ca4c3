import { getAuthorizedDomains, knownAuthorizedDomains } from './authorized-domains'
import { getConfig } from '~/.server/config'
import type { Platform } from '~/.server/config-schema'
import { allowedHostSources, checkRedirect } from './redirect-policy'

export function localPathOr(value: unknown, fallback = '/'): string {
  if (typeof value !== 'string' || value.length > 2048) return fallback
  // Browsers treat "\" as "/".
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

/** Made only where the value comes in, and trusted after: the end of a sign-in goes to `url` without checking again. */
export interface CheckedRedirect {
  readonly param: string
  readonly url: string
}

export type RedirectParam =
  { kind: 'none' } | { kind: 'missing' } | { kind: 'invalid' } | { kind: 'ok'; redirect: CheckedRedirect }

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

export async function checkedRedirect(raw: string | null, publicOrigin: string): Promise<CheckedRedirect | null> {
  const check = await checkRedirectParam(raw, publicOrigin)
  return check.kind === 'ok' ? check.redirect : null
}

const DEVELOPMENT_PLATFORMS: readonly Platform[] = ['local', 'test', 'development']

/** Every Firebase project lists localhost among its authorizedDomains (see ADR 016). */
export function loopbackHostsAllowed(platform: Platform): boolean {
  return DEVELOPMENT_PLATFORMS.includes(platform)
}

export function defaultRedirect(): string {
  return getConfig().defaultRedirectUrl ?? '/'
}

// CSP form-action also applies to the redirect that answers a form
// post, so every redirect target must be listed (see ADR 005).
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
