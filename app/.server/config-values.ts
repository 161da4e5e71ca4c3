import { isIP } from 'node:net'
import { z } from 'zod'
import { MIN_TEXT_CONTRAST, parseHex, ratioText, weakest, type Rgb } from '~/lib/contrast'
import { readLogo, type LogoFile } from './brand-logo'

declare module 'zod' {
  interface GlobalMeta {
    /** The environment variable a setting is read from. */
    env?: string
  }
}

/** A setting, read from the environment variable `env`; `description` is its line in docs/settings.md. */
export const from = <T extends z.ZodType>(env: string, schema: T, description: string): T =>
  schema.meta({ env, description })

export const variableOf = (schema: z.core.$ZodType) => z.globalRegistry.get(schema)?.env

export const port = z.coerce.number().int().min(0).max(65535)
export const positiveInt = z.coerce.number().int().positive()
export const ratio = z.coerce.number().min(0).max(1)
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

/** A `#rgb` or `#rrggbb` colour whose text reads at 4.5:1 in `scheme`, refused with a line saying why not. */
export const accent = (scheme: 'light' | 'dark') =>
  z.string().transform((value, ctx): Rgb => {
    const rgb = parseHex(value)
    const low = rgb && weakest(rgb, scheme)
    if (rgb && low && low.ratio >= MIN_TEXT_CONTRAST) return rgb
    const example = scheme === 'light' ? '#7a1fa2' : '#d9a6f0'
    ctx.addIssue({
      code: 'custom',
      message: low
        ? `${value} gives ${ratioText(low.ratio)} on ${low.against} (needs ${MIN_TEXT_CONTRAST}:1)`
        : `${value} is not a colour this setting takes: #rgb or #rrggbb (e.g. ${example})`,
    })
    return z.NEVER
  })

export const publicUrl = z.string().superRefine((text, ctx) => {
  const refuse = (message: string) => ctx.addIssue({ code: 'custom', message })
  if (!URL.canParse(text)) return refuse('must be a URL such as https://login.example.com')
  const url = new URL(text)
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return refuse(`must start with https:// (or http://), not ${url.protocol}//`)
  }
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    const why = 'the portal serves from the root of its host, not under a path'
    refuse(`must be an origin only, such as ${url.origin}: ${why}`)
  }
})

export function isLoopbackUrl(url: string): boolean {
  if (!URL.canParse(url)) return false
  const host = new URL(url).hostname
  return host === 'localhost' || host === '[::1]' || (isIP(host) === 4 && host.startsWith('127.'))
}

const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/** A list trusts exactly those peers, however many there are in a row. */
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

export function parseEmulatorHost(value: string): string | null {
  const candidate = value.includes('://') ? value : `http://${value}`
  if (!/^https?:\/\//i.test(candidate) || !URL.canParse(candidate)) return null
  const url = new URL(candidate)
  return url.pathname !== '/' || url.search || url.username ? null : url.origin
}

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

/** `Name: value`: a token, then printable text. */
const HEADER = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*:\s*([\t\x20-\x7e]+)$/

/** A value cannot hold a comma. The message never repeats a value: it may be a secret. */
export function parseHeaderList(value: string, ctx: z.RefinementCtx): Array<[string, string]> {
  const headers = list(value).map((entry) => HEADER.exec(entry))
  const bad = headers.findIndex((m) => !m)
  if (bad < 0) return headers.map((m) => [m![1]!, m![2]!])
  ctx.addIssue({
    code: 'custom',
    message: `entry ${bad + 1} is not 'Name: value' (expected comma-separated pairs, e.g. 'Authorization: Bearer xyz')`,
  })
  return z.NEVER
}

export const between = (min: number, max: number) => z.coerce.number().int().min(min).max(max)
/** Unset: null. */
export const orNull = <T extends z.ZodType>(schema: T) => schema.nullable().default(null)

export const flag = orNull(z.enum(['true', 'false']).transform((value) => value === 'true'))

export const scriptUrl = z
  .url({ protocol: /^https?$/ })
  .refine((u) => !URL.canParse(u) || (!new URL(u).search && !new URL(u).hash && !new URL(u).username), {
    message: 'must be a plain URL: the page adds ?render=SITE_KEY itself',
  })

export const flagServiceUrl = z
  .url({ protocol: /^https?$/ })
  .refine((u) => !URL.canParse(u) || !new URL(u).username, 'must not hold credentials: put them in FLAGS_OFREP_HEADERS')
  .transform((url) => url.replace(/\/+$/, ''))

/** One secret, never rotated: rotating it would change every stored hash (docs/operations.md). */
export const oneSecret = z
  .string()
  .trim()
  .min(1)
  .refine((v) => !v.includes(','), 'one secret, not a list: it does not rotate (docs/operations.md)')
