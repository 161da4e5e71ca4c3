import { z } from 'zod'
import { PASSWORD_MAX_LENGTH } from '~/lib/limits'
import * as value from './config-values'

export const PLATFORMS = ['local', 'development', 'staging', 'isoprod', 'production', 'test'] as const
export type Platform = (typeof PLATFORMS)[number]
export const LOCAL_PLATFORMS: readonly Platform[] = ['local', 'test']

const { between, flag, port, positiveInt } = value

const server = {
  PORT: port.default(3000).describe('HTTP port.'),
  HOST: z.string().min(1).default('127.0.0.1').describe('Address to listen on (the image sets `0.0.0.0`).'),
  PUBLIC_URL: z.string().superRefine((url, ctx) => {
    const problem = value.publicUrlProblem(url)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  }).optional().describe(
    'The origin visitors use, `https://…` in production; unset: `http://localhost:$PORT`. Pages, email links and ' +
      'redirects are made for it, never for `Host` (ADR 026).',
  ),
  PLATFORM: z.enum(PLATFORMS).default('local')
    .describe('`local`, `development`, `staging`, `isoprod`, `production` or `test`; secrets are required outside `local` and `test`.'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')
    .describe('`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.'),
  TRUST_PROXY: z.string().default('0').transform(value.parseTrustProxy).describe(
    "Which proxies' `X-Forwarded-For` gives the client address: a number of hops (`0`: none), or a list of the " +
      'proxies\' addresses and CIDR ranges (docs/deploying.md).',
  ),
  METRICS_PORT: port.optional().describe('Port of the Prometheus `/metrics` endpoint, on `HOST`; unset: none.'),
  SHUTDOWN_DELAY_MS: between(0, 60_000).default(0)
    .describe('After SIGTERM, how long to go on serving before closing the port, at most 60000 (docs/operations.md).'),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000)
    .describe('How long requests in flight may then finish before their connections are cut.'),
}

const identity = {
  FIREBASE_PROJECT_ID: z.string().min(1).default('demo-auth-portal').describe("The identity project's id."),
  IDENTITY_API_KEY: z.string().min(1).optional().describe(
    "The identity project's Web API key (one with a `:` is refused: `auth/invalid-api-key`); unset (`demo-api-key`) " +
      'only in `local` and `test` or with an emulator.',
  ),
  FIREBASE_AUTH_EMULATOR_HOST: z.string().min(1).optional()
    .describe('`host:port` or `http(s)://` URL of a Firebase Auth emulator, which then gets every identity call.'),
  IDENTITY_TENANT_ID: z.string().min(1).optional().describe('Identity Platform tenant, sent with every call that takes one.'),
  IDENTITY_TIMEOUT_MS: positiveInt.default(30_000)
    .describe('Time-out of one identity call, also of each session check by firebase-admin, retries included (ADR 029).'),
  IDENTITY_MAX_IN_FLIGHT: positiveInt.default(256)
    .describe('Identity calls that may wait at once per process; beyond, the answer is 503 at once (docs/operations.md).'),
  TOKEN_SYNC_URL: z.url({ protocol: /^https?$/ }).optional().describe(
    'Gets a POST with `Authorization: Bearer <ID token>` after each sign-in and a DELETE at logout; a failure is ' +
      'logged, never shown (ADR 006).',
  ),
  TOKEN_SYNC_TIMEOUT_MS: positiveInt.default(2_000)
    .describe('Time-out of the token sync, which every sign-in and logout waits for.'),
  RECAPTCHA_SCRIPT_URL: value.scriptUrl.default('https://www.google.com/recaptcha/enterprise.js').describe(
    'Where pages load reCAPTCHA Enterprise from, https outside `local`/`test` (docs/security.md); where google.com ' +
      'is unreachable, `https://www.recaptcha.net/recaptcha/enterprise.js`.',
  ),
}

const sessions = {
  SESSION_SECRET: z.string().min(1).optional().describe(
    'Secrets of the CSRF tokens and the flow and device cookies, comma-separated, 32+ characters each: the first ' +
      'signs, every one verifies (docs/operations.md). Required outside `local` and `test`, which have a development one.',
  ),
  IDENTIFIER_HASH_SECRET: value.oneSecret.optional().describe(
    'Key of the hashes of addresses and phone numbers (limit counters, logs), kept through `SESSION_SECRET` ' +
      'rotations; 32+ characters; unset: the first `SESSION_SECRET`.',
  ),
  SESSION_MAX_AGE: between(300, 1_209_600).default(28_800)
    .describe('Seconds (300 to 1209600) a session lasts without "Keep me signed in"; its cookie ends with the browser.'),
  SESSION_REMEMBER_MAX_AGE: between(300, 1_209_600).default(1_209_600)
    .describe('Seconds a session lasts with "Keep me signed in", its cookie\'s `Max-Age`; at least `SESSION_MAX_AGE`.'),
  SESSION_STORE_PATH: z.string().min(1).default('.data/sessions.sqlite').describe(
    'Without Redis, the SQLite file of the sessions, kept across restarts (the image: a volume at ' +
      '`/var/lib/portal/sessions.sqlite`); `:memory:` for tests.',
  ),
  SESSION_MAX_PER_ACCOUNT: between(1, 1_000).default(20)
    .describe('Sessions (signed-in browsers) one account keeps, at most 1000; a sign-in beyond it ends the oldest.'),
  RECENT_SIGN_IN_SECONDS: between(0, 300).default(300)
    .describe('Seconds (0 to 300) after signing in when account changes need no password again (docs/account.md).'),
}

const pages = {
  DEFAULT_REDIRECT_URL: z.string().min(1).optional()
    .describe('Where a sign-in goes without a `redirect` parameter; unset: `/`, which shows who is signed in.'),
  REDIRECT_ALLOWED_ORIGINS: z.string().optional().describe(
    "Comma-separated origins a `redirect` or `authDomain` may name besides the project's authorized domains " +
      '(docs/security.md, Loopback hosts).',
  ),
  PASSWORD_MIN_LENGTH: between(6, PASSWORD_MAX_LENGTH).default(12)
    .describe('Minimum length of a new password, in characters (Unicode code points), at least 6.'),
  FRAME_ANCESTORS: z.string().min(1).default("'none'").describe('CSP `frame-ancestors`: who may frame the portal.'),
  PRIVACY_POLICY_URL: z.url().default('https://policies.google.com/privacy').describe("The privacy notice's link."),
  COOKIES_HELP_URL: z.url().default('https://support.google.com/accounts/answer/61416')
    .describe("The link of the warning that cookies are blocked (the site's own, or third-party ones in a frame)."),
}

const redis = {
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional().describe(
    '`redis://…` (`rediss://`: TLS), shared by the replicas for limits and sessions (docs/deploying.md); unset: ' +
      'limits in memory, sessions in `SESSION_STORE_PATH`.',
  ),
  REDIS_SENTINELS: z.string().transform(value.parseHostPorts).optional()
    .describe('Instead of `REDIS_URL`, the sentinels of a replicated Redis: `host:port`, comma-separated.'),
  REDIS_SENTINEL_MASTER: z.string().regex(/^[\w.-]{1,64}$/).optional()
    .describe('The name the sentinels know the primary by; required with `REDIS_SENTINELS`.'),
  REDIS_PASSWORD: z.string().min(1).optional().describe('Password of Redis and of the sentinels. Never logged.'),
  REDIS_TLS: z.enum(['true', 'false']).default('false').describe('`true`: TLS to Redis and to the sentinels.'),
}

const limits = {
  RATE_LIMIT_SIGNIN_PER_EMAIL_IP: positiveInt.default(5).describe('Failed sign-ins for one address from one client, per 15 minutes.'),
  RATE_LIMIT_SIGNIN_PER_IP: positiveInt.default(30).describe('Failed sign-ins from one client, any address, per 15 minutes.'),
  RATE_LIMIT_SIGNIN_PER_EMAIL: positiveInt.default(20).describe('Failed sign-ins for one address from all clients, per hour.'),
  RATE_LIMIT_SIGNIN_PER_DEVICE: positiveInt.default(10)
    .describe("Failed sign-ins from a browser with the account's device cookie, per 15 minutes, instead of the above."),
  RATE_LIMIT_RESET_PER_EMAIL: positiveInt.default(3)
    .describe('Reset emails to one address, per hour; over it the page answers the same and sends nothing.'),
  RATE_LIMIT_RESET_PER_DEVICE: positiveInt.default(3)
    .describe("Reset emails asked from a browser with the account's device cookie, per hour, instead of the above."),
  RATE_LIMIT_RESET_PER_IP: positiveInt.default(10).describe('Reset and sign-in-link requests from one client, per hour.'),
  RATE_LIMIT_EMAIL_LINK_PER_EMAIL: positiveInt.default(3).describe('Sign-in links to one address, per hour, apart from resets.'),
  RATE_LIMIT_NEW_PASSWORD_PER_IP: positiveInt.default(10).describe('New-password submissions from one client, per 15 minutes.'),
  RATE_LIMIT_MFA_PER_PENDING: positiveInt.default(5).describe('Second-factor codes tried for one pending sign-in, per 10 minutes.'),
  RATE_LIMIT_MFA_PER_IP: positiveInt.default(30).describe('Second-factor codes tried from one client, per 15 minutes.'),
  RATE_LIMIT_MFA_PER_ACCOUNT: positiveInt.default(10).describe('Second-factor codes tried for one account, all clients, per hour.'),
  RATE_LIMIT_MFA_SMS_PER_PENDING: positiveInt.default(4)
    .describe("SMS codes sent for one pending sign-in (the first and each 'Resend code'), per 10 minutes."),
  RATE_LIMIT_MFA_SMS_PER_IP: positiveInt.default(20).describe("SMS codes sent for one client's sign-ins, per hour."),
  RATE_LIMIT_MFA_SMS_PER_ACCOUNT: positiveInt.default(10).describe('SMS codes sent for one account, all clients, per hour.'),
  RATE_LIMIT_MFA_SMS_PER_PHONE: positiveInt.default(5).describe('SMS codes sent to one enrolled phone, all clients, per hour.'),
  RATE_LIMIT_ENROL_PER_IP: positiveInt.default(20)
    .describe('Second factors started from one client (each a new secret), per hour; codes count in `RATE_LIMIT_MFA_*`.'),
  RATE_LIMIT_ENROL_PER_ACCOUNT: positiveInt.default(10).describe('Second factors started for one account, all clients, per hour.'),
  RATE_LIMIT_ENROL_SMS_PER_NUMBER: positiveInt.default(3)
    .describe('SMS codes to one number being added as a second factor, from every account and client, per hour.'),
  RATE_LIMIT_SIGN_UP_PER_IP: positiveInt.default(10)
    .describe('Sign-ups one client may post per hour; each also counts in the reset limits of its address.'),
  RATE_LIMIT_EMAIL_CHANGE_PER_ACCOUNT: positiveInt.default(3).describe(
    '"Confirm your new address" emails one account sends to any address, per hour; each also counts in ' +
      '`RATE_LIMIT_RESET_PER_IP` and, for the new address, `RATE_LIMIT_RESET_PER_EMAIL`.',
  ),
  RATE_LIMIT_LOGOUT_PER_IP: positiveInt.default(30).describe('Logouts posted from one client, per 15 minutes.'),
  RESEND_WAIT_SECONDS: between(1, 300).default(30).describe('Seconds (1 to 300) before a code or email just sent may go again.'),
  RATE_LIMIT_MEMORY_MAX_KEYS: z.coerce.number().int().min(1_000).default(100_000)
    .describe('Most rate-limit counters a process holds in memory (about 220 B each), at least 1000 (ADR 027).'),
}

const flags = {
  FLAGS_FILE: z.string().min(1).optional()
    .describe('A flagd JSON flag file, evaluated in process (OpenFeature); a broken one leaves the defaults.'),
  FLAGS_OFREP_URL: value.flagServiceUrl.optional().describe(
    'Base URL of a remote flag service speaking OFREP, https outside `local`/`test` unless on this host ' +
      '(docs/operations.md, Feature flags).',
  ),
  FLAGS_OFREP_HEADERS: z.string().transform(value.parseHeaderList).optional()
    .describe('Headers for the flag service, comma-separated `Name: value` pairs (`Authorization: Bearer xyz`). Never logged.'),
  FLAGS_OFREP_MAX_AGE: between(1, 3_600).default(30)
    .describe("Seconds (1 to 3600) the flag service's answers are used before a refresh: how long a change takes to show."),
  FLAG_SSO: flag.describe('`true` or `false`: single sign-on; unset, the flag service or file decides, else off.'),
  FLAG_EMAIL_LINK_SIGN_IN: flag.describe('`true` or `false`: sign-in by a link sent by email; as `FLAG_SSO`.'),
  FLAG_PASSKEYS: flag.describe(
    '`true` or `false`: passkeys on the sign-in page and `/account`; off by default while the service\'s API is a ' +
      'preview. The relying party is `PUBLIC_URL`\'s host (docs/passkeys.md).',
  ),
  FLAG_SIGN_UP: flag.describe('`true` or `false`: `/sign-up` creates accounts with a password; off by default (docs/sign-up.md).'),
  SSO_PROVIDER_ID: z.string().regex(/^[\w.-]{1,128}$/).optional().describe(
    "The project's provider for single sign-on (`oidc.*`, `saml.*`, `google.com`…); its redirect URI is " +
      '`PUBLIC_URL/sso/callback` (ADR 011).',
  ),
  SSO_PROVIDER_NAME: z.string().trim().min(1).max(64).optional().describe(
    'The name on the "Continue with …" buttons, up to 64 characters; unset: the provider\'s own for `google.com`, ' +
      '`apple.com`, `microsoft.com`, `facebook.com`, `github.com`, `twitter.com`, `yahoo.com`, else "Use single sign-on".',
  ),
}

const brand = {
  BRAND_NAME: value.brandName.optional()
    .describe('The name in the header and page titles, one line of 60 characters at most (docs/brand.md).'),
  BRAND_NAME_FR: value.brandName.optional().describe('The name in French, over `BRAND_NAME`.'),
  BRAND_NAME_EN: value.brandName.optional().describe('The name in English, over `BRAND_NAME`.'),
  BRAND_LOGO: value.logoFile.optional().describe('SVG or PNG file, at most 20 KB, shown instead of the mark and the name.'),
  BRAND_LOGO_DARK: value.logoFile.optional().describe('The logo of the dark colour scheme; needs `BRAND_LOGO`.'),
  BRAND_ACCENT: z.string().transform(value.parseAccent).optional()
    .describe('Colour of buttons, links and focus rings, `#rgb` or `#rrggbb`, refused under 4.5:1 contrast.'),
  BRAND_ACCENT_DARK: z.string().transform(value.parseDarkAccent).optional()
    .describe("The dark scheme's accent, as `BRAND_ACCENT` (needs it) but 4.5:1 on the dark card; unset: derived from it."),
}

const reporting = {
  SENTRY_DSN: z.url().optional()
    .describe('Error reports to Sentry, server and browser, unless `PLATFORM` is `local` (docs/security.md).'),
  SENTRY_REPLAY_SESSION_SAMPLE_RATE: value.ratio.default(0.1)
    .describe('Share (0 to 1) of browser sessions Session Replay records from the start.'),
  SENTRY_REPLAY_ON_ERROR_SAMPLE_RATE: value.ratio.default(0.75)
    .describe('Share (0 to 1) of the other sessions whose last moments Replay sends with an error.'),
}

/** `npm run settings-doc` writes docs/settings.md from these groups and descriptions. */
export const SETTING_GROUPS = [
  ['Server', server],
  ['Identity service', identity],
  ['Sessions and secrets', sessions],
  ['Pages and redirects', pages],
  ['Redis', redis],
  ['Rate limits', limits],
  ['Feature flags and single sign-on', flags],
  ['Brand', brand],
  ['Error reporting', reporting],
] as const

export const EnvSchema = z
  .object({ ...server, ...identity, ...sessions, ...pages, ...redis, ...limits, ...flags, ...brand, ...reporting })
  .superRefine((env, ctx) => {
    const local = LOCAL_PLATFORMS.includes(env.PLATFORM)
    const refuse = (key: keyof typeof env, message: string) => ctx.addIssue({ code: 'custom', path: [key], message })
    const notHttps = `must be https when PLATFORM is ${env.PLATFORM}`
    if (env.IDENTITY_API_KEY?.includes(':')) refuse('IDENTITY_API_KEY', 'auth/invalid-api-key: the API key must not contain a colon')
    if (!env.IDENTITY_API_KEY && !env.FIREBASE_AUTH_EMULATOR_HOST && !local) {
      refuse('IDENTITY_API_KEY', 'required (or set FIREBASE_AUTH_EMULATOR_HOST)')
    }
    if (env.FIREBASE_AUTH_EMULATOR_HOST && value.parseEmulatorHost(env.FIREBASE_AUTH_EMULATOR_HOST) === null) {
      refuse('FIREBASE_AUTH_EMULATOR_HOST', 'must be host:port or a URL starting with http:// or https://')
    }
    // Links and flag answers reach every visitor: https, except on this host (a sidecar, a local try).
    for (const key of ['PUBLIC_URL', 'FLAGS_OFREP_URL'] as const) {
      const url = env[key]
      if (!local && url?.startsWith('http:') && !value.isLoopbackUrl(url)) refuse(key, `${notHttps}, unless it is on this host (localhost, 127.0.0.0/8, [::1])`)
    }
    if (!local && env.RECAPTCHA_SCRIPT_URL.startsWith('http:')) refuse('RECAPTCHA_SCRIPT_URL', notHttps)
    if (env.REDIS_SENTINELS && !env.REDIS_SENTINEL_MASTER) {
      refuse('REDIS_SENTINEL_MASTER', 'required with REDIS_SENTINELS: the name the sentinels know the primary by')
    }
    if (env.REDIS_SENTINELS && env.REDIS_URL) refuse('REDIS_SENTINELS', 'set REDIS_URL or REDIS_SENTINELS, not both')
    if (!env.SESSION_SECRET && !local) refuse('SESSION_SECRET', `required when PLATFORM is ${env.PLATFORM}`)
    if (env.SESSION_SECRET && !local && env.SESSION_SECRET.split(',').some((s) => s.trim().length < 32)) {
      refuse('SESSION_SECRET', 'each comma-separated secret must be at least 32 characters')
    }
    // A value out of bounds already has its own line.
    const remember = env.SESSION_REMEMBER_MAX_AGE
    if (Number.isInteger(remember) && remember >= 300 && remember < env.SESSION_MAX_AGE) {
      refuse('SESSION_REMEMBER_MAX_AGE', `must be at least SESSION_MAX_AGE (${env.SESSION_MAX_AGE})`)
    }
    if (env.BRAND_LOGO_DARK && !env.BRAND_LOGO) refuse('BRAND_LOGO_DARK', 'needs BRAND_LOGO, the logo of the light scheme')
    if (env.BRAND_ACCENT_DARK && !env.BRAND_ACCENT) refuse('BRAND_ACCENT_DARK', 'needs BRAND_ACCENT, the accent of the light scheme')
    if (env.IDENTIFIER_HASH_SECRET && !local && env.IDENTIFIER_HASH_SECRET.length < 32) {
      refuse('IDENTIFIER_HASH_SECRET', 'must be at least 32 characters')
    }
  })
