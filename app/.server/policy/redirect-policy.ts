/**
 * Where the portal may send the browser after sign-in ('Invalid redirect
 * URL' / 'Missing redirect URL'). Pure; the caller passes the configured origins and the
 * identity project's authorizedDomains.
 *
 * Accepted:
 * - a path on our origin ('/dashboard?x=1'), returned as an absolute URL on publicOrigin: a
 *   bare path can come back as '//evil.com' after dot-segment removal ('/.//evil.com'), and
 *   an absolute URL cannot be misread as protocol-relative;
 * - an absolute URL whose origin is publicOrigin or one of allowedOrigins, as spelled out by
 *   the operator (scheme and port included, so those are trusted as written);
 * - an absolute https URL on the default port whose host name is in allowedHosts (exact
 *   match, so '*.example.com' is not a wildcard); http and any port only for 'localhost'.
 *   127.0.0.1 and [::1] are the only IP hosts accepted, http allowed, default port only.
 *   Loopback hosts (localhost, *.localhost, 127.0.0.1, [::1]) count only with allowLoopbackHosts:
 *   every Firebase project lists localhost, which in production would send a visitor's session to
 *   whatever listens on the visitor's own machine (ADR 016).
 * Always the re-serialised URL, never the raw input.
 */

export type RedirectCheck = { kind: 'none' } | { kind: 'missing' } | { kind: 'invalid' } | { kind: 'ok'; url: string }

export interface RedirectPolicy {
  /** config.publicOrigin, e.g. 'https://login.example.com'. */
  publicOrigin: string
  /** Host names (authorizedDomains), compared case-insensitively. */
  allowedHosts: ReadonlySet<string> | readonly string[]
  /** Full origins (config.redirectAllowedOrigins), e.g. 'https://app.example.com:8443'. */
  allowedOrigins: readonly string[]
  /**
   * Whether loopback hosts in allowedHosts count: only on development platforms (PLATFORM local,
   * test, development). allowedOrigins and publicOrigin are trusted as written either way.
   */
  allowLoopbackHosts?: boolean
}

export const REDIRECT_MAX_LENGTH = 2048

const NONE = { kind: 'none' } as const
const MISSING = { kind: 'missing' } as const
const INVALID = { kind: 'invalid' } as const

/**
 * Refused before parsing, since parsers and browsers disagree about them: controls (the WHATWG
 * parser silently drops tab/CR/LF, so 'java\tscript:' becomes 'javascript:'), invisible format
 * characters (zero-width, bidi overrides, soft hyphen), any whitespace, and '\' (read as '/').
 */
const UNSAFE_CHAR = /[\p{Cc}\p{Cf}\p{Z}\s\\]/u
const DANGEROUS_SCHEME = /^(?:javascript|data|vbscript|file):/i
/** A single '/' then anything but '/': '//host' would be protocol-relative. */
const LOCAL_PATH = /^\/(?!\/)/
/** Exactly two slashes: WHATWG also accepts 'https:evil.com' and 'https:///evil.com'. */
const ABSOLUTE = /^https?:\/\/(?!\/)/i
/** Plain DNS labels: no '*', no trailing dot, no Unicode (IDNs must match in punycode). */
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
    const url = parse(raw, publicOrigin)
    return url?.origin === publicOrigin ? { kind: 'ok', url: url.href } : INVALID
  }
  if (!ABSOLUTE.test(raw)) return INVALID

  const url = parse(raw)
  if (url === null || url.username !== '' || url.password !== '') return INVALID
  // The host must already be in canonical form. Otherwise the parser rewrote it: IP tricks
  // ('0x7f.1', '2130706433'), IDNA mapping ('good。com', 'good%E3%80%82com'), userinfo, or an
  // explicit default port. Refusing them all keeps "what was checked" equal to "what was written".
  const authority = raw.slice(raw.indexOf('//') + 2).split(/[/?#]/, 1)[0] ?? ''
  if (authority.toLowerCase() !== url.host || url.hostname.endsWith('.')) return INVALID

  if (url.origin === publicOrigin || policy.allowedOrigins.some((o) => originOf(o) === url.origin)) {
    return { kind: 'ok', url: url.href }
  }
  return hostAllowed(url, policy.allowedHosts, policy.allowLoopbackHosts ?? false)
    ? { kind: 'ok', url: url.href }
    : INVALID
}

function hostAllowed(url: URL, allowedHosts: RedirectPolicy['allowedHosts'], allowLoopbackHosts: boolean): boolean {
  const host = url.hostname
  if (!allowLoopbackHosts && isLoopbackHost(host)) return false
  const loopback = LOOPBACK.has(host)
  if (!loopback && (!HOST_NAME.test(host) || IPV4.test(host))) return false
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return false
  if (url.port !== '' && host !== 'localhost') return false
  return [...allowedHosts].some((entry) => entry.trim().toLowerCase() === host)
}

/**
 * The CSP sources that match exactly what hostAllowed accepts for these host names (a page's
 * `form-action` lists them; ADR 005). Entries that could never match are left out, so nothing
 * from the identity service's list can add a directive to the header.
 */
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

/** localhost and its subdomains (RFC 6761), 127.0.0.0/8, [::1]: the visitor's own machine. */
function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost') || host === '[::1]') return true
  return IPV4.test(host) && host.startsWith('127.')
}

function parse(raw: string, base?: string): URL | null {
  try {
    return new URL(raw, base)
  } catch {
    return null
  }
}

/** 'null' for non-http(s) schemes is treated as no origin at all. */
function originOf(value: string): string | null {
  const origin = parse(value)?.origin
  return origin && origin !== 'null' ? origin : null
}
