import { isIP } from 'node:net'
import { z } from 'zod'
import { MIN_TEXT_CONTRAST, darkAccent, parseHex, ratioText, toHex, weakest } from '~/lib/contrast'
import { PASSWORD_MAX_LENGTH } from '~/lib/limits'
import { readLogo, type LogoFile } from './brand-logo'

/**
 * Every environment variable the portal reads, with its type, bounds and default, and the checks
 * across them; app/.server/config.ts turns the parsed environment into the config the code reads.
 */

export const PLATFORMS = ['local', 'development', 'staging', 'isoprod', 'production', 'test'] as const
export type Platform = (typeof PLATFORMS)[number]

export const LOCAL_PLATFORMS: readonly Platform[] = ['local', 'test']

const port = z.coerce.number().int().min(0).max(65535)
const positiveInt = z.coerce.number().int().positive()
const ratio = z.coerce.number().min(0).max(1)
/** A brand name: one line of text, short enough for the header at 320 px and a tab's title. */
const brandName = z
  .string()
  .trim()
  .min(1)
  .max(60)
  .refine((v) => !/[\p{Cc}\p{Cf}]/u.test(v), 'must be one line of plain text')
const logoFile = z.string().transform((file, ctx): LogoFile => {
  const logo = readLogo(file)
  if (typeof logo !== 'string') return logo
  ctx.addIssue({ code: 'custom', message: logo })
  return z.NEVER
})

export const EnvSchema = z
  .object({
    PORT: port.default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    PLATFORM: z.enum(PLATFORMS).default('local'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    TRUST_PROXY: z.string().default('0').transform(parseTrustProxy),
    FIREBASE_PROJECT_ID: z.string().min(1).default('demo-auth-portal'),
    IDENTITY_API_KEY: z.string().min(1).optional(),
    FIREBASE_AUTH_EMULATOR_HOST: z.string().min(1).optional(),
    IDENTITY_TENANT_ID: z.string().min(1).optional(),
    IDENTITY_TIMEOUT_MS: positiveInt.default(30_000),
    IDENTITY_MAX_IN_FLIGHT: positiveInt.default(256),
    SESSION_SECRET: z.string().min(1).optional(),
    IDENTIFIER_HASH_SECRET: z
      .string()
      .trim()
      .min(1)
      .refine((v) => !v.includes(','), 'one secret, not a list: it does not rotate (README, secret rotation)')
      .optional(),
    SESSION_MAX_AGE: z.coerce.number().int().min(300).max(1_209_600).default(28_800),
    SESSION_REMEMBER_MAX_AGE: z.coerce.number().int().min(300).max(1_209_600).default(1_209_600),
    TOKEN_SYNC_URL: z.url({ protocol: /^https?$/ }).optional(),
    TOKEN_SYNC_TIMEOUT_MS: positiveInt.default(2_000),
    DEFAULT_REDIRECT_URL: z.string().min(1).optional(),
    REDIRECT_ALLOWED_ORIGINS: z.string().optional(),
    PASSWORD_MIN_LENGTH: z.coerce.number().int().min(6).max(PASSWORD_MAX_LENGTH).default(12),
    REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
    REDIS_SENTINELS: z.string().transform(parseHostPorts).optional(),
    REDIS_SENTINEL_MASTER: z.string().regex(/^[\w.-]{1,64}$/).optional(),
    REDIS_PASSWORD: z.string().min(1).optional(),
    REDIS_TLS: z.enum(['true', 'false']).default('false'),
    SESSION_STORE_PATH: z.string().min(1).default('.data/sessions.sqlite'),
    RECENT_SIGN_IN_SECONDS: z.coerce.number().int().min(0).max(300).default(300),
    SESSION_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).max(1_000).default(20),
    RATE_LIMIT_SIGNIN_PER_EMAIL_IP: positiveInt.default(5),
    RATE_LIMIT_SIGNIN_PER_IP: positiveInt.default(30),
    RATE_LIMIT_SIGNIN_PER_EMAIL: positiveInt.default(20),
    RATE_LIMIT_SIGNIN_PER_DEVICE: positiveInt.default(10),
    RATE_LIMIT_RESET_PER_EMAIL: positiveInt.default(3),
    RATE_LIMIT_RESET_PER_IP: positiveInt.default(10),
    RATE_LIMIT_NEW_PASSWORD_PER_IP: positiveInt.default(10),
    RATE_LIMIT_MFA_PER_PENDING: positiveInt.default(5),
    RATE_LIMIT_MFA_PER_IP: positiveInt.default(30),
    RATE_LIMIT_MFA_SMS_PER_PENDING: positiveInt.default(4),
    RATE_LIMIT_MFA_SMS_PER_IP: positiveInt.default(20),
    RATE_LIMIT_MFA_PER_ACCOUNT: positiveInt.default(10),
    RATE_LIMIT_MFA_SMS_PER_ACCOUNT: positiveInt.default(10),
    RATE_LIMIT_MFA_SMS_PER_PHONE: positiveInt.default(5),
    RATE_LIMIT_EMAIL_LINK_PER_EMAIL: positiveInt.default(3),
    RATE_LIMIT_RESET_PER_DEVICE: positiveInt.default(3),
    RATE_LIMIT_ENROL_PER_IP: positiveInt.default(20),
    RATE_LIMIT_ENROL_PER_ACCOUNT: positiveInt.default(10),
    RATE_LIMIT_EMAIL_CHANGE_PER_ACCOUNT: positiveInt.default(3),
    RATE_LIMIT_LOGOUT_PER_IP: positiveInt.default(30),
    RATE_LIMIT_ENROL_SMS_PER_NUMBER: positiveInt.default(3),
    RATE_LIMIT_SIGN_UP_PER_IP: positiveInt
      .default(10)
      .describe('Sign-ups one client may post per hour; each one also counts in the reset limits of its address.'),
    RATE_LIMIT_MEMORY_MAX_KEYS: z.coerce.number().int().min(1_000).default(100_000),
    FRAME_ANCESTORS: z.string().min(1).default("'none'"),
    PRIVACY_POLICY_URL: z.url().default('https://policies.google.com/privacy'),
    COOKIES_HELP_URL: z.url().default('https://support.google.com/accounts/answer/61416'),
    SENTRY_DSN: z.url().optional(),
    SENTRY_REPLAY_SESSION_SAMPLE_RATE: ratio.default(0.1),
    SENTRY_REPLAY_ON_ERROR_SAMPLE_RATE: ratio.default(0.75),
    RECAPTCHA_SCRIPT_URL: z
      .url({ protocol: /^https?$/ })
      .refine((u) => !URL.canParse(u) || (!new URL(u).search && !new URL(u).hash && !new URL(u).username), {
        message: 'must be a plain URL: the page adds ?render=SITE_KEY itself',
      })
      .default('https://www.google.com/recaptcha/enterprise.js'),
    FLAGS_FILE: z.string().min(1).optional(),
    FLAGS_OFREP_URL: z
      .url({ protocol: /^https?$/ })
      .refine(
        (u) => !URL.canParse(u) || !new URL(u).username,
        'must not hold credentials: put them in FLAGS_OFREP_HEADERS',
      )
      .optional(),
    FLAGS_OFREP_HEADERS: z.string().transform(parseHeaderList).optional(),
    FLAGS_OFREP_MAX_AGE: z.coerce.number().int().min(1).max(3_600).default(30),
    FLAG_SSO: z.enum(['true', 'false']).optional(),
    FLAG_EMAIL_LINK_SIGN_IN: z.enum(['true', 'false']).optional(),
    FLAG_SIGN_UP: z
      .enum(['true', 'false'])
      .optional()
      .describe(
        'true: /sign-up lets visitors create an account with a password (docs/sign-up.md); off by default. The identity project must allow email/password sign-up.',
      ),
    SSO_PROVIDER_ID: z.string().regex(/^[\w.-]{1,128}$/).optional(),
    SSO_PROVIDER_NAME: z.string().trim().min(1).max(64).optional(),
    BRAND_NAME: brandName.optional(),
    BRAND_NAME_FR: brandName.optional(),
    BRAND_NAME_EN: brandName.optional(),
    BRAND_LOGO: logoFile.optional(),
    BRAND_LOGO_DARK: logoFile.optional(),
    BRAND_ACCENT: z.string().transform(parseAccent).optional(),
    METRICS_PORT: port.optional(),
    SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
    SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  })
  .superRefine((env, ctx) => {
    const local = LOCAL_PLATFORMS.includes(env.PLATFORM)
    if (env.IDENTITY_API_KEY?.includes(':')) {
      ctx.addIssue({
        code: 'custom',
        path: ['IDENTITY_API_KEY'],
        message: 'auth/invalid-api-key: the API key must not contain a colon',
      })
    }
    if (!env.IDENTITY_API_KEY && !env.FIREBASE_AUTH_EMULATOR_HOST && !local) {
      ctx.addIssue({
        code: 'custom',
        path: ['IDENTITY_API_KEY'],
        message: 'required (or set FIREBASE_AUTH_EMULATOR_HOST)',
      })
    }
    if (env.FIREBASE_AUTH_EMULATOR_HOST && parseEmulatorHost(env.FIREBASE_AUTH_EMULATOR_HOST) === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['FIREBASE_AUTH_EMULATOR_HOST'],
        message: 'must be host:port or a URL starting with http:// or https://',
      })
    }
    if (!local && env.RECAPTCHA_SCRIPT_URL.startsWith('http:')) {
      ctx.addIssue({ code: 'custom', path: ['RECAPTCHA_SCRIPT_URL'], message: `must be https when PLATFORM is ${env.PLATFORM}` })
    }
    // The flag service's answers choose what every visitor gets: never over plain HTTP outside local and
    // test, except to a sidecar on this host (flagd in the same pod), which is as safe as the pod itself.
    if (!local && env.FLAGS_OFREP_URL?.startsWith('http:') && !isLoopbackUrl(env.FLAGS_OFREP_URL)) {
      ctx.addIssue({
        code: 'custom',
        path: ['FLAGS_OFREP_URL'],
        message: `must be https when PLATFORM is ${env.PLATFORM}, unless it is on this host (localhost, 127.0.0.0/8, [::1])`,
      })
    }
    if (env.REDIS_SENTINELS && !env.REDIS_SENTINEL_MASTER) {
      ctx.addIssue({ code: 'custom', path: ['REDIS_SENTINEL_MASTER'], message: 'required with REDIS_SENTINELS: the name the sentinels know the primary by' })
    }
    if (env.REDIS_SENTINELS && env.REDIS_URL) {
      ctx.addIssue({ code: 'custom', path: ['REDIS_SENTINELS'], message: 'set REDIS_URL or REDIS_SENTINELS, not both' })
    }
    if (!env.SESSION_SECRET && !local) {
      ctx.addIssue({ code: 'custom', path: ['SESSION_SECRET'], message: `required when PLATFORM is ${env.PLATFORM}` })
    }
    if (env.SESSION_SECRET && !local && env.SESSION_SECRET.split(',').some((s) => s.trim().length < 32)) {
      ctx.addIssue({
        code: 'custom',
        path: ['SESSION_SECRET'],
        message: 'each comma-separated secret must be at least 32 characters',
      })
    }
    // "Keep me signed in" keeps the visitor at least as long as a session that ends with the browser
    // (a value out of bounds already has its own line).
    const remember = env.SESSION_REMEMBER_MAX_AGE
    if (Number.isInteger(remember) && remember >= 300 && remember < env.SESSION_MAX_AGE) {
      ctx.addIssue({
        code: 'custom',
        path: ['SESSION_REMEMBER_MAX_AGE'],
        message: `must be at least SESSION_MAX_AGE (${env.SESSION_MAX_AGE})`,
      })
      }
    if (env.BRAND_LOGO_DARK && !env.BRAND_LOGO) {
      ctx.addIssue({ code: 'custom', path: ['BRAND_LOGO_DARK'], message: 'needs BRAND_LOGO, the logo of the light scheme' })
    }
    if (env.IDENTIFIER_HASH_SECRET && !local && env.IDENTIFIER_HASH_SECRET.length < 32) {
      ctx.addIssue({ code: 'custom', path: ['IDENTIFIER_HASH_SECRET'], message: 'must be at least 32 characters' })
    }
  })

/**
 * `BRAND_ACCENT`: `#rgb` or `#rrggbb`, refused when its text would read under 4.5:1 in the light
 * scheme; the dark scheme's is derived from it (ADR 040).
 */
export function parseAccent(value: string, ctx: z.RefinementCtx): { light: string; dark: string } {
  const rgb = parseHex(value)
  if (!rgb) {
    ctx.addIssue({ code: 'custom', message: `${value} is not a colour this setting takes: #rgb or #rrggbb (e.g. #7a1fa2)` })
    return z.NEVER
  }
  const low = weakest(rgb, 'light')
  if (low.ratio < MIN_TEXT_CONTRAST) {
    ctx.addIssue({
      code: 'custom',
      message: `${value} gives ${ratioText(low.ratio)} on ${low.against} (needs ${MIN_TEXT_CONTRAST}:1)`,
    })
    return z.NEVER
  }
  return { light: toHex(rgb), dark: toHex(darkAccent(rgb)) }
}

/** Express's names for address ranges (proxy-addr). */
/** A URL whose host is this machine: `localhost`, an address in 127.0.0.0/8, or `[::1]`. */
export function isLoopbackUrl(url: string): boolean {
  if (!URL.canParse(url)) return false
  const host = new URL(url).hostname
  return host === 'localhost' || host === '[::1]' || (isIP(host) === 4 && host.startsWith('127.'))
}

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
function parseHostPorts(value: string, ctx: z.RefinementCtx): Array<{ host: string; port: number }> {
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
function parseHeaderList(value: string, ctx: z.RefinementCtx): Array<[string, string]> {
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
