import { providerName } from '~/lib/providers'
import type { z } from 'zod'
import { EnvSchema, LOCAL_PLATFORMS } from './config-schema'
import { list, parseEmulatorHost } from './config-values'

/** Nothing else reads process.env: every setting is declared in ./config-schema.ts. */

const DEV_SESSION_SECRET = 'local-development-secret-do-not-use-in-production'

export type Config = ReturnType<typeof toConfig>

function toConfig(env: z.infer<typeof EnvSchema>) {
  const emulatorOrigin = env.FIREBASE_AUTH_EMULATOR_HOST
    ? parseEmulatorHost(env.FIREBASE_AUTH_EMULATOR_HOST)
    : null
  const publicUrl = new URL(env.PUBLIC_URL ?? `http://localhost:${env.PORT}`)
  return {
    port: env.PORT,
    host: env.HOST,
    publicOrigin: publicUrl.origin,
    platform: env.PLATFORM,
    isProductionLike: !LOCAL_PLATFORMS.includes(env.PLATFORM),
    logLevel: env.LOG_LEVEL,
    trustProxy: env.TRUST_PROXY,
    identity: {
      projectId: env.FIREBASE_PROJECT_ID,
      apiKey: env.IDENTITY_API_KEY ?? 'demo-api-key',
      emulatorOrigin,
      tenantId: env.IDENTITY_TENANT_ID ?? null,
      timeoutMs: env.IDENTITY_TIMEOUT_MS,
      maxInFlight: env.IDENTITY_MAX_IN_FLIGHT,
    },
    sessionSecrets: list(env.SESSION_SECRET ?? DEV_SESSION_SECRET),
    /** null: the first of sessionSecrets. */
    identifierHashSecret: env.IDENTIFIER_HASH_SECRET ?? null,
    sessionMaxAgeSeconds: env.SESSION_MAX_AGE,
    sessionRememberMaxAgeSeconds: env.SESSION_REMEMBER_MAX_AGE,
    tokenSyncUrl: env.TOKEN_SYNC_URL ?? null,
    tokenSyncTimeoutMs: env.TOKEN_SYNC_TIMEOUT_MS,
    defaultRedirectUrl: env.DEFAULT_REDIRECT_URL ?? null,
    redirectAllowedOrigins: list(env.REDIRECT_ALLOWED_ORIGINS ?? ''),
    passwordMinLength: env.PASSWORD_MIN_LENGTH,
    redis: {
      url: env.REDIS_URL ?? null,
      sentinels: env.REDIS_SENTINELS ?? null,
      sentinelMaster: env.REDIS_SENTINEL_MASTER ?? null,
      password: env.REDIS_PASSWORD ?? null,
      tls: env.REDIS_TLS === 'true',
    },
    sessionStorePath: env.SESSION_STORE_PATH,
    sessionMaxPerAccount: env.SESSION_MAX_PER_ACCOUNT,
    recentSignInSeconds: env.RECENT_SIGN_IN_SECONDS,
    resendWaitSeconds: env.RESEND_WAIT_SECONDS,
    rateLimits: {
      signInPerEmailIp: env.RATE_LIMIT_SIGNIN_PER_EMAIL_IP,
      signInPerIp: env.RATE_LIMIT_SIGNIN_PER_IP,
      signInPerEmail: env.RATE_LIMIT_SIGNIN_PER_EMAIL,
      signInPerDevice: env.RATE_LIMIT_SIGNIN_PER_DEVICE,
      resetPerEmail: env.RATE_LIMIT_RESET_PER_EMAIL,
      resetPerIp: env.RATE_LIMIT_RESET_PER_IP,
      newPasswordPerIp: env.RATE_LIMIT_NEW_PASSWORD_PER_IP,
      mfaCodePerPending: env.RATE_LIMIT_MFA_PER_PENDING,
      mfaCodePerIp: env.RATE_LIMIT_MFA_PER_IP,
      mfaSmsPerPending: env.RATE_LIMIT_MFA_SMS_PER_PENDING,
      mfaSmsPerIp: env.RATE_LIMIT_MFA_SMS_PER_IP,
      mfaCodePerAccount: env.RATE_LIMIT_MFA_PER_ACCOUNT,
      mfaSmsPerAccount: env.RATE_LIMIT_MFA_SMS_PER_ACCOUNT,
      mfaSmsPerPhone: env.RATE_LIMIT_MFA_SMS_PER_PHONE,
      linkPerEmail: env.RATE_LIMIT_EMAIL_LINK_PER_EMAIL,
      resetPerDevice: env.RATE_LIMIT_RESET_PER_DEVICE,
      enrolPerIp: env.RATE_LIMIT_ENROL_PER_IP,
      enrolPerAccount: env.RATE_LIMIT_ENROL_PER_ACCOUNT,
      enrolSmsPerNumber: env.RATE_LIMIT_ENROL_SMS_PER_NUMBER,
      emailChangePerAccount: env.RATE_LIMIT_EMAIL_CHANGE_PER_ACCOUNT,
      logoutPerIp: env.RATE_LIMIT_LOGOUT_PER_IP,
      /** A start is no guess, and the sign-in page makes one per view: four times sign-in's count. */
      passkeyStartPerIp: env.RATE_LIMIT_SIGNIN_PER_IP * 4,
      passkeyChallenge: 1,
      signUpPerIp: env.RATE_LIMIT_SIGN_UP_PER_IP,
    },
    rateLimitMemoryMaxKeys: env.RATE_LIMIT_MEMORY_MAX_KEYS,
    frameAncestors: env.FRAME_ANCESTORS,
    privacyPolicyUrl: env.PRIVACY_POLICY_URL,
    cookiesHelpUrl: env.COOKIES_HELP_URL,
    sentryDsn: env.SENTRY_DSN ?? null,
    replaySampleRates: { session: env.SENTRY_REPLAY_SESSION_SAMPLE_RATE, onError: env.SENTRY_REPLAY_ON_ERROR_SAMPLE_RATE },
    recaptchaScriptUrl: env.RECAPTCHA_SCRIPT_URL,
    flagsFile: env.FLAGS_FILE ?? null,
    flagsRemote: env.FLAGS_OFREP_URL
      ? {
          url: env.FLAGS_OFREP_URL.replace(/\/+$/, ''),
          headers: env.FLAGS_OFREP_HEADERS ?? [],
          maxAgeMs: env.FLAGS_OFREP_MAX_AGE * 1000,
        }
      : null,
    flagOverrides: {
      sso: env.FLAG_SSO ?? null,
      emailLinkSignIn: env.FLAG_EMAIL_LINK_SIGN_IN ?? null,
      passkeys: env.FLAG_PASSKEYS ?? null,
      signUp: env.FLAG_SIGN_UP ?? null,
    },
    ssoProviderId: env.SSO_PROVIDER_ID ?? null,
    ssoProviderName: env.SSO_PROVIDER_ID ? providerName(env.SSO_PROVIDER_ID, env.SSO_PROVIDER_NAME ?? null) : null,
    brand: {
      name: { fr: env.BRAND_NAME_FR ?? env.BRAND_NAME ?? null, en: env.BRAND_NAME_EN ?? env.BRAND_NAME ?? null },
      logo: env.BRAND_LOGO ?? null,
      logoDark: env.BRAND_LOGO_DARK ?? null,
      accent: env.BRAND_ACCENT ? { ...env.BRAND_ACCENT, ...(env.BRAND_ACCENT_DARK ? { dark: env.BRAND_ACCENT_DARK } : {}) } : null,
    },
    metricsPort: env.METRICS_PORT ?? null,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    shutdownDelayMs: env.SHUTDOWN_DELAY_MS,
  }
}

export type ConfigResult = { ok: true; config: Config; warnings: string[] } | { ok: false; errors: string[] }

function warningsFor(env: z.infer<typeof EnvSchema>): string[] {
  const short = env.SESSION_SECRET?.split(',').some((secret) => secret.trim().length < 32)
  return short && !toConfig(env).isProductionLike
    ? [`SESSION_SECRET: shorter than 32 characters, accepted only because PLATFORM is ${env.PLATFORM}`]
    : []
}

/** Local only: elsewhere the schema itself requires a key. */
export function identityMissing(env: Record<string, string | undefined>, config: Config): string | null {
  if (config.platform !== 'local' || config.identity.emulatorOrigin || env.IDENTITY_API_KEY) return null
  return 'No identity service: set FIREBASE_AUTH_EMULATOR_HOST to try the portal against an emulator (npm start does this for you), or IDENTITY_API_KEY and FIREBASE_PROJECT_ID for a project.'
}

export function parseConfig(env: Record<string, string | undefined>): ConfigResult {
  // An empty variable means "not set", as operators expect from `FOO= npm run serve`.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
  const result = EnvSchema.safeParse(present)
  if (!result.success) {
    return {
      ok: false,
      errors: result.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`),
    }
  }
  return { ok: true, config: toConfig(result.data), warnings: warningsFor(result.data) }
}

let cached: Config | undefined

export function getConfig(): Config {
  if (cached) return cached
  const result = parseConfig(process.env)
  if (!result.ok) throw new ConfigError(result.errors)
  cached = result.config
  return cached
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.join('\n')}`)
    this.name = 'ConfigError'
  }
}
