import { z } from 'zod'
import { PASSWORD_MAX_LENGTH } from '~/lib/limits'
import * as value from './config-values'

const PLATFORMS = ['local', 'development', 'staging', 'isoprod', 'production', 'test'] as const
export type Platform = (typeof PLATFORMS)[number]
export const LOCAL_PLATFORMS: readonly Platform[] = ['local', 'test']

const { between, flag, from, orNull, port, positiveInt } = value

// Each group is in the shape of the configuration (app/.server/config.ts) and a table of docs/settings.md.
const server = {
  port: from('PORT', port.default(3000), 'HTTP port.'),
  host: from('HOST', z.string().min(1).default('127.0.0.1'), 'Address to listen on (the image sets `0.0.0.0`).'),
  publicUrl: from('PUBLIC_URL', orNull(value.publicUrl),
    'The origin visitors use, `https://…` in production; unset: `http://localhost:$PORT`. Pages, email links and ' +
      'redirects are made for it, never for `Host` (ADR 026).'),
  platform: from('PLATFORM', z.enum(PLATFORMS).default('local'),
    '`local`, `development`, `staging`, `isoprod`, `production` or `test`; secrets are required outside `local` ' +
      'and `test`.'),
  logLevel: from('LOG_LEVEL', z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.'),
  trustProxy: from('TRUST_PROXY', z.string().default('0').transform(value.parseTrustProxy),
    "Which proxies' `X-Forwarded-For` gives the client address: a number of hops (`0`: none), or a list of the " +
      'proxies\' addresses and CIDR ranges (docs/deploying.md).'),
  metricsPort: from('METRICS_PORT', orNull(port),
    'Port of the Prometheus `/metrics` endpoint, on `HOST`; unset: none.'),
  shutdownDelayMs: from('SHUTDOWN_DELAY_MS', between(0, 60_000).default(0),
    'After SIGTERM, how long to go on serving before closing the port, at most 60000 (docs/operations.md).'),
  shutdownTimeoutMs: from('SHUTDOWN_TIMEOUT_MS', positiveInt.default(10_000),
    'How long requests in flight may then finish before their connections are cut.'),
}

const identity = {
  identity: z.object({
    projectId: from('FIREBASE_PROJECT_ID', z.string().min(1).default('demo-auth-portal'), "The identity project's id."),
    apiKey: from('IDENTITY_API_KEY', orNull(z.string().min(1)),
      "The identity project's Web API key (one with a `:` is refused: `auth/invalid-api-key`); unset " +
        '(`demo-api-key`) only in `local` and `test` or with an emulator.'),
    emulatorHost: from('FIREBASE_AUTH_EMULATOR_HOST', orNull(z.string().min(1)),
      '`host:port` or `http(s)://` URL of a Firebase Auth emulator, which then gets every identity call.'),
    tenantId: from('IDENTITY_TENANT_ID', orNull(z.string().min(1)),
      'Identity Platform tenant, sent with every call that takes one.'),
    timeoutMs: from('IDENTITY_TIMEOUT_MS', positiveInt.default(30_000),
      'Time-out of one identity call, also of each session check by firebase-admin, retries included (ADR 029).'),
    maxInFlight: from('IDENTITY_MAX_IN_FLIGHT', positiveInt.default(256),
      'Identity calls that may wait at once per process; beyond, the answer is 503 at once (docs/operations.md).'),
  }),
  tokenSyncUrl: from('TOKEN_SYNC_URL', orNull(z.url({ protocol: /^https?$/ })),
    'Gets a POST with `Authorization: Bearer <ID token>` after each sign-in and a DELETE at logout; a failure is ' +
      'logged, never shown (ADR 006).'),
  tokenSyncTimeoutMs: from('TOKEN_SYNC_TIMEOUT_MS', positiveInt.default(2_000),
    'Time-out of the token sync, which every sign-in and logout waits for.'),
  recaptchaScriptUrl: from('RECAPTCHA_SCRIPT_URL',
    value.scriptUrl.default('https://www.google.com/recaptcha/enterprise.js'),
    'Where pages load reCAPTCHA Enterprise from, https outside `local`/`test` (docs/security.md); where google.com ' +
      'is unreachable, `https://www.recaptcha.net/recaptcha/enterprise.js`.'),
}

const sessions = {
  sessionSecret: from('SESSION_SECRET', orNull(z.string().min(1)),
    'Secrets of the CSRF tokens and the flow and device cookies, comma-separated, 32+ characters each: the first ' +
      'signs, every one verifies (docs/operations.md). Required outside `local` and `test`, which have a ' +
      'development one.'),
  identifierHashSecret: from('IDENTIFIER_HASH_SECRET', orNull(value.oneSecret),
    'Key of the hashes of addresses and phone numbers (limit counters, logs), kept through `SESSION_SECRET` ' +
      'rotations; 32+ characters; unset: the first `SESSION_SECRET`.'),
  sessionMaxAgeSeconds: from('SESSION_MAX_AGE', between(300, 1_209_600).default(28_800),
    'Seconds (300 to 1209600) a session lasts without "Keep me signed in"; its cookie ends with the browser.'),
  sessionRememberMaxAgeSeconds: from('SESSION_REMEMBER_MAX_AGE', between(300, 1_209_600).default(1_209_600),
    'Seconds a session lasts with "Keep me signed in", its cookie\'s `Max-Age`; at least `SESSION_MAX_AGE`.'),
  sessionStorePath: from('SESSION_STORE_PATH', z.string().min(1).default('.data/sessions.sqlite'),
    'Without Redis, the SQLite file of the sessions, kept across restarts (the image: a volume at ' +
      '`/var/lib/portal/sessions.sqlite`); `:memory:` for tests.'),
  sessionMaxPerAccount: from('SESSION_MAX_PER_ACCOUNT', between(1, 1_000).default(20),
    'Sessions (signed-in browsers) one account keeps, at most 1000; a sign-in beyond it ends the oldest.'),
  recentSignInSeconds: from('RECENT_SIGN_IN_SECONDS', between(0, 300).default(300),
    'Seconds (0 to 300) after signing in when account changes need no password again (docs/account.md).'),
}

const pages = {
  defaultRedirectUrl: from('DEFAULT_REDIRECT_URL', orNull(z.string().min(1)),
    'Where a sign-in goes without a `redirect` parameter; unset: `/`, which shows who is signed in.'),
  redirectAllowedOrigins: from('REDIRECT_ALLOWED_ORIGINS', orNull(z.string()),
    "Comma-separated origins a `redirect` or `authDomain` may name besides the project's authorized domains " +
      '(docs/security.md, Loopback hosts).'),
  passwordMinLength: from('PASSWORD_MIN_LENGTH', between(6, PASSWORD_MAX_LENGTH).default(12),
    'Minimum length of a new password, in characters (Unicode code points), at least 6.'),
  frameAncestors: from('FRAME_ANCESTORS', z.string().min(1).default("'none'"),
    'CSP `frame-ancestors`: who may frame the portal.'),
  privacyPolicyUrl: from('PRIVACY_POLICY_URL', z.url().default('https://policies.google.com/privacy'),
    "The privacy notice's link."),
  cookiesHelpUrl: from('COOKIES_HELP_URL', z.url().default('https://support.google.com/accounts/answer/61416'),
    "The link of the warning that cookies are blocked (the site's own, or third-party ones in a frame)."),
}

const redis = {
  redis: z.object({
    url: from('REDIS_URL', orNull(z.url({ protocol: /^rediss?$/ })),
      '`redis://…` (`rediss://`: TLS), shared by the replicas for limits and sessions (docs/deploying.md); unset: ' +
        'limits in memory, sessions in `SESSION_STORE_PATH`.'),
    sentinels: from('REDIS_SENTINELS', orNull(z.string().transform(value.parseHostPorts)),
      'Instead of `REDIS_URL`, the sentinels of a replicated Redis: `host:port`, comma-separated.'),
    sentinelMaster: from('REDIS_SENTINEL_MASTER', orNull(z.string().regex(/^[\w.-]{1,64}$/)),
      'The name the sentinels know the primary by; required with `REDIS_SENTINELS`.'),
    password: from('REDIS_PASSWORD', orNull(z.string().min(1)),
      'Password of Redis and of the sentinels. Never logged.'),
    tls: from('REDIS_TLS', z.enum(['true', 'false']).default('false').transform((tls) => tls === 'true'),
      '`true`: TLS to Redis and to the sentinels.'),
  }),
}

/** A count allowed per period, at least 1. */
const limit = (env: string, count: number, description: string) => from(env, positiveInt.default(count), description)

const limits = {
  rateLimits: z.object({
    signInPerEmailIp: limit('RATE_LIMIT_SIGNIN_PER_EMAIL_IP', 5,
      'Failed sign-ins for one address from one client, per 15 minutes.'),
    signInPerIp: limit('RATE_LIMIT_SIGNIN_PER_IP', 30, 'Failed sign-ins from one client, any address, per 15 minutes.'),
    signInPerEmail: limit('RATE_LIMIT_SIGNIN_PER_EMAIL', 20,
      'Failed sign-ins for one address from all clients, per hour.'),
    signInPerDevice: limit('RATE_LIMIT_SIGNIN_PER_DEVICE', 10,
      "Failed sign-ins from a browser with the account's device cookie, per 15 minutes, instead of the above."),
    resetPerEmail: limit('RATE_LIMIT_RESET_PER_EMAIL', 3,
      'Reset emails to one address, per hour; over it the page answers the same and sends nothing.'),
    resetPerDevice: limit('RATE_LIMIT_RESET_PER_DEVICE', 3,
      "Reset emails asked from a browser with the account's device cookie, per hour, instead of the above."),
    resetPerIp: limit('RATE_LIMIT_RESET_PER_IP', 10, 'Reset and sign-in-link requests from one client, per hour.'),
    linkPerEmail: limit('RATE_LIMIT_EMAIL_LINK_PER_EMAIL', 3,
      'Sign-in links to one address, per hour, apart from resets.'),
    newPasswordPerIp: limit('RATE_LIMIT_NEW_PASSWORD_PER_IP', 10,
      'New-password submissions from one client, per 15 minutes.'),
    mfaCodePerPending: limit('RATE_LIMIT_MFA_PER_PENDING', 5,
      'Second-factor codes tried for one pending sign-in, per 10 minutes.'),
    mfaCodePerIp: limit('RATE_LIMIT_MFA_PER_IP', 30, 'Second-factor codes tried from one client, per 15 minutes.'),
    mfaCodePerAccount: limit('RATE_LIMIT_MFA_PER_ACCOUNT', 10,
      'Second-factor codes tried for one account, all clients, per hour.'),
    mfaSmsPerPending: limit('RATE_LIMIT_MFA_SMS_PER_PENDING', 4,
      "SMS codes sent for one pending sign-in (the first and each 'Resend code'), per 10 minutes."),
    mfaSmsPerIp: limit('RATE_LIMIT_MFA_SMS_PER_IP', 20, "SMS codes sent for one client's sign-ins, per hour."),
    mfaSmsPerAccount: limit('RATE_LIMIT_MFA_SMS_PER_ACCOUNT', 10,
      'SMS codes sent for one account, all clients, per hour.'),
    mfaSmsPerPhone: limit('RATE_LIMIT_MFA_SMS_PER_PHONE', 5,
      'SMS codes sent to one enrolled phone, all clients, per hour.'),
    enrolPerIp: limit('RATE_LIMIT_ENROL_PER_IP', 20,
      'Second factors started from one client (each a new secret), per hour; codes count in `RATE_LIMIT_MFA_*`.'),
    enrolPerAccount: limit('RATE_LIMIT_ENROL_PER_ACCOUNT', 10,
      'Second factors started for one account, all clients, per hour.'),
    enrolSmsPerNumber: limit('RATE_LIMIT_ENROL_SMS_PER_NUMBER', 3,
      'SMS codes to one number being added as a second factor, from every account and client, per hour.'),
    signUpPerIp: limit('RATE_LIMIT_SIGN_UP_PER_IP', 10,
      'Sign-ups one client may post per hour; each also counts in the reset limits of its address.'),
    emailChangePerAccount: limit('RATE_LIMIT_EMAIL_CHANGE_PER_ACCOUNT', 3,
      '"Confirm your new address" emails one account sends to any address, per hour; each also counts in ' +
        '`RATE_LIMIT_RESET_PER_IP` and, for the new address, `RATE_LIMIT_RESET_PER_EMAIL`.'),
    logoutPerIp: limit('RATE_LIMIT_LOGOUT_PER_IP', 30, 'Logouts posted from one client, per 15 minutes.'),
  }),
  resendWaitSeconds: from('RESEND_WAIT_SECONDS', between(1, 300).default(30),
    'Seconds (1 to 300) before a code or email just sent may go again.'),
  rateLimitMemoryMaxKeys: from('RATE_LIMIT_MEMORY_MAX_KEYS', z.coerce.number().int().min(1_000).default(100_000),
    'Most rate-limit counters a process holds in memory (about 220 B each), at least 1000 (ADR 027).'),
}

const flags = {
  flagsFile: from('FLAGS_FILE', orNull(z.string().min(1)),
    'A flagd JSON flag file, evaluated in process (OpenFeature); a broken one leaves the defaults.'),
  flagService: z.object({
    url: from('FLAGS_OFREP_URL', orNull(value.flagServiceUrl),
      'Base URL of a remote flag service speaking OFREP, https outside `local`/`test` unless on this host ' +
        '(docs/operations.md, Feature flags).'),
    headers: from('FLAGS_OFREP_HEADERS', orNull(z.string().transform(value.parseHeaderList)),
      'Headers for the flag service, comma-separated `Name: value` pairs (`Authorization: Bearer xyz`). Never logged.'),
    maxAge: from('FLAGS_OFREP_MAX_AGE', between(1, 3_600).default(30),
      "Seconds (1 to 3600) the flag service's answers are used before a refresh: how long a change takes to show."),
  }),
  flagOverrides: z.object({
    sso: from('FLAG_SSO', flag,
      '`true` or `false`: single sign-on; unset, the flag service or file decides, else off.'),
    emailLinkSignIn: from('FLAG_EMAIL_LINK_SIGN_IN', flag,
      '`true` or `false`: sign-in by a link sent by email; as `FLAG_SSO`.'),
    passkeys: from('FLAG_PASSKEYS', flag,
      '`true` or `false`: passkeys on the sign-in page and `/account`; off by default while the service\'s API is ' +
        'a preview. The relying party is `PUBLIC_URL`\'s host (docs/passkeys.md).'),
    signUp: from('FLAG_SIGN_UP', flag,
      '`true` or `false`: `/sign-up` creates accounts with a password; off by default (docs/sign-up.md).'),
  }),
  ssoProviderId: from('SSO_PROVIDER_ID', orNull(z.string().regex(/^[\w.-]{1,128}$/)),
    "The project's provider for single sign-on (`oidc.*`, `saml.*`, `google.com`…); its redirect URI is " +
      '`PUBLIC_URL/sso/callback` (ADR 011).'),
  ssoProviderName: from('SSO_PROVIDER_NAME', orNull(z.string().trim().min(1).max(64)),
    'The name on the "Continue with …" buttons, up to 64 characters; unset: the provider\'s own for `google.com`, ' +
      '`apple.com`, `microsoft.com`, `facebook.com`, `github.com`, `twitter.com`, `yahoo.com`, else "Use single ' +
      'sign-on".'),
}

const brand = {
  brand: z.object({
    name: from('BRAND_NAME', orNull(value.brandName),
      'The name in the header and page titles, one line of 60 characters at most (docs/brand.md).'),
    nameFr: from('BRAND_NAME_FR', orNull(value.brandName), 'The name in French, over `BRAND_NAME`.'),
    nameEn: from('BRAND_NAME_EN', orNull(value.brandName), 'The name in English, over `BRAND_NAME`.'),
    logo: from('BRAND_LOGO', orNull(value.logoFile),
      'SVG or PNG file, at most 20 KB, shown instead of the mark and the name.'),
    logoDark: from('BRAND_LOGO_DARK', orNull(value.logoFile),
      'The logo of the dark colour scheme; needs `BRAND_LOGO`.'),
    accent: from('BRAND_ACCENT', orNull(value.accent('light')),
      'Colour of buttons, links and focus rings, `#rgb` or `#rrggbb`, refused under 4.5:1 contrast.'),
    accentDark: from('BRAND_ACCENT_DARK', orNull(value.accent('dark')),
      "The dark scheme's accent, as `BRAND_ACCENT` (needs it) but 4.5:1 on the dark card; unset: derived from it."),
  }),
}

const reporting = {
  sentryDsn: from('SENTRY_DSN', orNull(z.url()),
    'Error reports to Sentry, server and browser, unless `PLATFORM` is `local` (docs/security.md).'),
  replaySampleRates: z.object({
    session: from('SENTRY_REPLAY_SESSION_SAMPLE_RATE', value.ratio.default(0.1),
      'Share (0 to 1) of browser sessions Session Replay records from the start.'),
    onError: from('SENTRY_REPLAY_ON_ERROR_SAMPLE_RATE', value.ratio.default(0.75),
      'Share (0 to 1) of the other sessions whose last moments Replay sends with an error.'),
  }),
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

/** Every setting, in the shape of the configuration. */
export const SETTINGS = {
  ...server, ...identity, ...sessions, ...pages, ...redis, ...limits, ...flags, ...brand, ...reporting,
}
