import { isIP } from 'node:net'
import { z } from 'zod'
import { MIN_TEXT_CONTRAST, darkAccent, parseHex, ratioText, toHex, weakest, type Rgb } from '~/lib/contrast'
import { readLogo, type LogoFile } from './brand-logo'

/** The kinds of value the settings take, and the parsers of those that need more than zod's own checks. */

export const port = z.coerce.number().int().min(0).max(65535)
export const positiveInt = z.coerce.number().int().positive()
export const ratio = z.coerce.number().min(0).max(1)
/** A brand name: one line of text, short enough for the header at 320 px and a tab's title. */
export const brandName = z
  .string()
  .trim()
  .min(1)
  .max(60)
  .refine((v) => !/[\p{Cc}\p{Cf}]/u.test(v), 'must be one line of plain text')
export const logoFile = z.string().transform((file, ctx): LogoFile => {
  const logo = readLogo(file)
  if (typeof logo !== 'string') return logo
  ctx.addIssue({ code: 'custom', message: logo })
  return z.NEVER
})

/** A `#rgb` or `#rrggbb` colour whose text reads at 4.5:1 in `scheme` (app/lib/contrast.ts), or a line saying why not. */
function readableAccent(value: string, scheme: 'light' | 'dark', ctx: z.RefinementCtx): Rgb | typeof z.NEVER {
  const rgb = parseHex(value)
  if (!rgb) {
    const example = scheme === 'light' ? '#7a1fa2' : '#d9a6f0'
    ctx.addIssue({ code: 'custom', message: `${value} is not a colour this setting takes: #rgb or #rrggbb (e.g. ${example})` })
    return z.NEVER
  }
  const low = weakest(rgb, scheme)
  if (low.ratio < MIN_TEXT_CONTRAST) {
    ctx.addIssue({
      code: 'custom',
      message: `${value} gives ${ratioText(low.ratio)} on ${low.against} (needs ${MIN_TEXT_CONTRAST}:1)`,
    })
    return z.NEVER
  }
  return rgb
}

/**
 * `BRAND_ACCENT`: `#rgb` or `#rrggbb`, refused when its text would read under 4.5:1 in the light
 * scheme; the dark scheme's is derived from it (ADR 040), unless `BRAND_ACCENT_DARK` gives it.
 */
export function parseAccent(value: string, ctx: z.RefinementCtx): { light: string; dark: string } {
  const rgb = readableAccent(value, 'light', ctx)
  return rgb === z.NEVER ? z.NEVER : { light: toHex(rgb), dark: toHex(darkAccent(rgb)) }
}

/** `BRAND_ACCENT_DARK`: the dark scheme's accent as given, refused under 4.5:1 on the dark card, page or under its button text (ADR 076). */
export function parseDarkAccent(value: string, ctx: z.RefinementCtx): string {
  const rgb = readableAccent(value, 'dark', ctx)
  return rgb === z.NEVER ? z.NEVER : toHex(rgb)
}

/** A URL whose host is this machine: `localhost`, an address in 127.0.0.0/8, or `[::1]`. */
/** What is wrong with a `PUBLIC_URL`, said for the operator, or null: an http(s) origin, with no path. */
export function publicUrlProblem(text: string): string | null {
  if (!URL.canParse(text)) return 'must be a URL such as https://login.example.com'
  const url = new URL(text)
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must start with https:// (or http://), not ${url.protocol}//`
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    return `must be an origin only, such as ${url.origin}: the portal serves from the root of its host, not under a path`
  }
  return null
}

export function isLoopbackUrl(url: string): boolean {
  if (!URL.canParse(url)) return false
  const host = new URL(url).hostname
  return host === 'localhost' || host === '[::1]' || (isIP(host) === 4 && host.startsWith('127.'))
}

/** Express's names for address ranges (proxy-addr). */
const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/**
 * `TRUST_PROXY`: a number of proxy hops (0 to 10), or the proxies' addresses as a comma-separated
 * list of addresses, CIDR ranges and Express's names `loopback`, `linklocal`, `uniquelocal`
 * (`10.0.0.0/8, loopback`). A list trusts exactly those peers, however many there are in a row.
 */
export function parseTrustProxy(value: string, ctx: z.RefinementCtx): number | string[] {
  const text = value.trim()
  if (/^\d+$/.test(text)) {
    const hops = Number(text)
    if (hops <= 10) return hops
  } else {
    const entries = list(text)
    const wrong = entries.find((entry) => !TRUST_PROXY_NAMES.has(entry) && !isAddressRange(entry))
    if (entries.length > 0 && wrong === undefined) return entries
  }
  ctx.addIssue({
    code: 'custom',
    message: 'must be a number of proxies from 0 to 10, or a comma-separated list of addresses, CIDR ranges, loopback, linklocal, uniquelocal',
  })
  return z.NEVER
}

function isAddressRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/')
  const version = isIP(address)
  if (version === 0 || rest.length > 0) return false
  if (prefix === undefined) return true
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128)
}

/** The emulator as an origin: accepts Firebase's `host:port` form or an http(s) URL. */
export function parseEmulatorHost(value: string): string | null {
  const candidate = value.includes('://') ? value : `http://${value}`
  if (!/^https?:\/\//i.test(candidate)) return null
  try {
    const url = new URL(candidate)
    if (url.pathname !== '/' || url.search || url.username) return null
    return url.origin
  } catch {
    return null
  }
}

/** `host:port` pairs, comma-separated (`10.0.0.1:26379, sentinel-b:26379`), as ioredis takes sentinels. */
export function parseHostPorts(value: string, ctx: z.RefinementCtx): Array<{ host: string; port: number }> {
  const pairs = list(value).map((entry) => /^(\[[\da-f:]+\]|[\w.-]+):(\d{1,5})$/i.exec(entry))
  const bad = pairs.findIndex((m) => !m || Number(m[2]) > 65_535)
  if (pairs.length === 0 || bad >= 0) {
    ctx.addIssue({ code: 'custom', message: `entry ${bad + 1} is not host:port` })
    return z.NEVER
  }
  return pairs.map((m) => ({ host: m![1]!.replace(/^\[|\]$/g, ''), port: Number(m![2]) }))
}

export function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const HEADER_VALUE = /^[\t\x20-\x7e]+$/

/**
 * `FLAGS_OFREP_HEADERS`: comma-separated `Name: value` pairs (`Authorization: Bearer xyz, X-Env: prod`);
 * a value cannot hold a comma. The message never repeats a value: it may be a secret.
 */
export function parseHeaderList(value: string, ctx: z.RefinementCtx): Array<[string, string]> {
  const headers: Array<[string, string]> = []
  const entries = list(value)
  for (const [index, entry] of entries.entries()) {
    const colon = entry.indexOf(':')
    const name = entry.slice(0, colon).trim()
    const headerValue = entry.slice(colon + 1).trim()
    if (colon < 1 || !HEADER_NAME.test(name) || !HEADER_VALUE.test(headerValue)) {
      ctx.addIssue({
        code: 'custom',
        message: `entry ${index + 1} is not 'Name: value' (expected comma-separated pairs, e.g. 'Authorization: Bearer xyz')`,
      })
      return z.NEVER
    }
    headers.push([name, headerValue])
  }
  return headers
}

/** A whole number from min to max. */
export const between = (min: number, max: number) => z.coerce.number().int().min(min).max(max)
/** A feature flag's setting; unset, the flag service or file decides. */
export const flag = z.enum(['true', 'false']).optional()

/** reCAPTCHA's script: the page adds `?render=SITE_KEY` itself. */
export const scriptUrl = z
  .url({ protocol: /^https?$/ })
  .refine((u) => !URL.canParse(u) || (!new URL(u).search && !new URL(u).hash && !new URL(u).username), {
    message: 'must be a plain URL: the page adds ?render=SITE_KEY itself',
  })

export const flagServiceUrl = z
  .url({ protocol: /^https?$/ })
  .refine((u) => !URL.canParse(u) || !new URL(u).username, 'must not hold credentials: put them in FLAGS_OFREP_HEADERS')

/** IDENTIFIER_HASH_SECRET: one secret, never rotated (docs/operations.md). */
export const oneSecret = z
  .string()
  .trim()
  .min(1)
  .refine((v) => !v.includes(','), 'one secret, not a list: it does not rotate (docs/operations.md)')
