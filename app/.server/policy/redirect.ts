import { getIdentity } from '~/.server/identity'
import { logger } from '~/.server/ops/logger'
import { recordCacheFilled } from '~/.server/ops/metrics'
import { getConfig } from '~/.server/config'
import type { Platform } from '~/.server/config-schema'

// A path comes back as an absolute URL on publicOrigin: a bare path can turn into
// '//evil.com' after dot-segment removal. Loopback hosts count only with allowLoopbackHosts:
// every Firebase project lists localhost, which in production would send a session to the
// visitor's own machine (see ADR 016). Always the re-serialised URL, never the raw input.

export type RedirectCheck = { kind: 'none' } | { kind: 'missing' } | { kind: 'invalid' } | { kind: 'ok'; url: string }

export interface RedirectPolicy {
  publicOrigin: string
  allowedHosts: ReadonlySet<string> | readonly string[]
  allowedOrigins: readonly string[]
  allowLoopbackHosts?: boolean
}

export const REDIRECT_MAX_LENGTH = 2048

const NONE = { kind: 'none' } as const
const MISSING = { kind: 'missing' } as const
const INVALID = { kind: 'invalid' } as const

// Refused before parsing, since parsers and browsers disagree: the
// WHATWG parser drops tab/CR/LF ('java\tscript:'), and '\' reads as '/'.
const UNSAFE_CHAR = /[\p{Cc}\p{Cf}\p{Z}\s\\]/u
const DANGEROUS_SCHEME = /^(?:javascript|data|vbscript|file):/i
/** '//host' would be protocol-relative. */
const LOCAL_PATH = /^\/(?!\/)/
/** Exactly two slashes: WHATWG also accepts 'https:evil.com' and 'https:///evil.com'. */
const ABSOLUTE = /^https?:\/\/(?!\/)/i
/** No '*', no trailing dot, no Unicode (IDNs must match in punycode). */
const HOST_NAME = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/
const IPV4 = /^[0-9.]+$/
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

export function checkRedirect(raw: string | null, policy: RedirectPolicy): RedirectCheck {
  if (raw === null) return NONE
  if (raw.trim() === '') return MISSING
  if (raw.length > REDIRECT_MAX_LENGTH || UNSAFE_CHAR.test(raw) || DANGEROUS_SCHEME.test(raw)) return INVALID

  const publicOrigin = originOf(policy.publicOrigin)
  if (publicOrigin === null) return INVALID
  if (LOCAL_PATH.test(raw)) {
    const url = URL.parse(raw, publicOrigin)
    return url?.origin === publicOrigin ? { kind: 'ok', url: url.href } : INVALID
  }
  if (!ABSOLUTE.test(raw)) return INVALID

  const url = URL.parse(raw)
  if (url === null || url.username !== '' || url.password !== '') return INVALID
  // A host not in canonical form was rewritten by the parser (IP tricks, IDNA mapping,
  // userinfo, default port): refusing it keeps what was checked equal to what was written.
  const authority = raw.slice(raw.indexOf('//') + 2).split(/[/?#]/, 1)[0] ?? ''
  if (authority.toLowerCase() !== url.host || url.hostname.endsWith('.')) return INVALID

  const allowed =
    url.origin === publicOrigin ||
    policy.allowedOrigins.some((o) => originOf(o) === url.origin) ||
    hostAllowed(url, policy.allowedHosts, policy.allowLoopbackHosts ?? false)
  return allowed ? { kind: 'ok', url: url.href } : INVALID
}

// Allowed when its origin is one allowedHostSources lists for the CSP: https without a port,
// http too for a loopback host, and any port on localhost.
function hostAllowed(url: URL, allowedHosts: RedirectPolicy['allowedHosts'], allowLoopbackHosts: boolean): boolean {
  const origin = url.hostname === 'localhost' ? `${url.protocol}//localhost:*` : url.origin
  return allowedHostSources(allowedHosts, { allowLoopbackHosts }).includes(origin)
}

// Entries that could never match are left out, so nothing from
// the identity service's list can add a directive to the header.
export function allowedHostSources(
  allowedHosts: RedirectPolicy['allowedHosts'],
  { allowLoopbackHosts = false }: Pick<RedirectPolicy, 'allowLoopbackHosts'> = {},
): string[] {
  return [...allowedHosts].flatMap((entry) => {
    const host = entry.trim().toLowerCase()
    if (!allowLoopbackHosts && isLoopbackHost(host)) return []
    if (host === 'localhost') return ['http://localhost:*', 'https://localhost:*']
    if (LOOPBACK.has(host)) return [`http://${host}`, `https://${host}`]
    return HOST_NAME.test(host) && !IPV4.test(host) ? [`https://${host}`] : []
  })
}

function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost') || host === '[::1]') return true
  return IPV4.test(host) && host.startsWith('127.')
}

function originOf(value: string): string | null {
  const origin = URL.parse(value)?.origin
  return origin && origin !== 'null' ? origin : null
}

// The policy with the portal's configuration and the project's authorizedDomains.

export function localPathOr(value: unknown, fallback = '/'): string {
  if (typeof value !== 'string' || value.length > 2048) return fallback
  // Browsers treat "\" as "/".
  // eslint-disable-next-line no-control-regex
  if (!value.startsWith('/') || /[\u0000-\u001f\u007f\\]/.test(value)) return fallback
  const base = 'http://portal.invalid'
  const url = URL.parse(value, base)
  // Dot segments can collapse to `//host` ('/.//evil.com'), which a browser reads as another site.
  if (url?.origin !== base || url.pathname.startsWith('//')) return fallback
  return url.pathname + url.search
}

/** Made only where the value comes in, and trusted after: the end of a sign-in goes to `url` without checking again. */
export interface CheckedRedirect {
  readonly param: string
  readonly url: string
}

export type RedirectParam = Exclude<RedirectCheck, { kind: 'ok' }> | { kind: 'ok'; redirect: CheckedRedirect }

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
  return redirectOf(await checkRedirectParam(raw, publicOrigin))
}

/** The checked redirect of a posted or linked `redirect`, or null when there was none or it was refused. */
export const redirectOf = (param: RedirectParam): CheckedRedirect | null =>
  param.kind === 'ok' ? param.redirect : null

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
    const origin = url ? originOf(url) : null
    if (origin) sources.add(origin)
  }
  const allowLoopbackHosts = loopbackHostsAllowed(platform)
  for (const source of allowedHostSources(knownAuthorizedDomains(), { allowLoopbackHosts })) sources.add(source)
  sources.delete(publicOrigin)
  return [...sources]
}

// The project's authorizedDomains, the hosts a redirect may go to: read in the background every 5 minutes.
const DOMAINS_REFRESH_MS = 5 * 60 * 1000
const FAILURE_BACKOFF_MS = 30 * 1000

// After a failed read the last list stays and the next read waits 30 s, so
// an identity outage does not cost one call and its time-out per page view.
const cache = {
  hosts: new Set<string>(),
  nextReadAt: 0,
  pending: null as Promise<void> | null,
}

export function knownAuthorizedDomains(): ReadonlySet<string> {
  void getAuthorizedDomains()
  return cache.hosts
}

export async function getAuthorizedDomains(): Promise<ReadonlySet<string>> {
  if (Date.now() >= cache.nextReadAt) {
    cache.pending ??= getIdentity()
      .getProjectConfig()
      .then((config) => {
        cache.hosts = new Set(config.authorizedDomains.map((d) => d.toLowerCase()))
        cache.nextReadAt = Date.now() + DOMAINS_REFRESH_MS
        recordCacheFilled('authorized_domains')
      })
      .catch((error: unknown) => {
        cache.nextReadAt = Date.now() + FAILURE_BACKOFF_MS
        const fields = { code: (error as { code?: string }).code, retryInMs: FAILURE_BACKOFF_MS }
        logger.warn({ event: 'authorized-domains-failed', ...fields }, 'could not read authorizedDomains')
      })
      .finally(() => {
        cache.pending = null
      })
    await cache.pending
  }
  return cache.hosts
}
