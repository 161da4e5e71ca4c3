import { darkAccent, toHex } from '~/lib/contrast'
import { providerName } from '~/lib/providers'
import { z } from 'zod'
import { LOCAL_PLATFORMS, SETTINGS } from './config-schema'
import { isLoopbackUrl, list, parseEmulatorHost, variableOf } from './config-values'

/** Nothing else reads process.env: every setting is declared in ./config-schema.ts. */

const DEV_SESSION_SECRET = 'local-development-secret-do-not-use-in-production'

export type Config = ReturnType<typeof toConfig>

const SettingsSchema = z.object(SETTINGS).superRefine((settings, ctx) => {
  const { platform, sessionSecret, identifierHashSecret } = settings
  const local = LOCAL_PLATFORMS.includes(platform)
  // A cross-check names the environment variable itself.
  const refuse = (env: string, message: string) => ctx.addIssue({ code: 'custom', path: [env], message })
  const notHttps = `must be https when PLATFORM is ${platform}`
  const { apiKey, emulatorHost } = settings.identity
  if (apiKey?.includes(':')) refuse('IDENTITY_API_KEY', 'auth/invalid-api-key: the API key must not contain a colon')
  if (!apiKey && !emulatorHost && !local) refuse('IDENTITY_API_KEY', 'required (or set FIREBASE_AUTH_EMULATOR_HOST)')
  if (emulatorHost && parseEmulatorHost(emulatorHost) === null) {
    refuse('FIREBASE_AUTH_EMULATOR_HOST', 'must be host:port or a URL starting with http:// or https://')
  }
  // Links and flag answers reach every visitor: https, except on this host (a sidecar, a local try).
  const urls = { PUBLIC_URL: settings.publicUrl, FLAGS_OFREP_URL: settings.flagService.url }
  for (const [env, url] of Object.entries(urls)) {
    if (!local && url?.startsWith('http:') && !isLoopbackUrl(url)) {
      refuse(env, `${notHttps}, unless it is on this host (localhost, 127.0.0.0/8, [::1])`)
    }
  }
  if (!local && settings.recaptchaScriptUrl.startsWith('http:')) refuse('RECAPTCHA_SCRIPT_URL', notHttps)
  const { sentinels, sentinelMaster, url: redisUrl } = settings.redis
  if (sentinels && !sentinelMaster) {
    refuse('REDIS_SENTINEL_MASTER', 'required with REDIS_SENTINELS: the name the sentinels know the primary by')
  }
  if (sentinels && redisUrl) refuse('REDIS_SENTINELS', 'set REDIS_URL or REDIS_SENTINELS, not both')
  if (!sessionSecret && !local) refuse('SESSION_SECRET', `required when PLATFORM is ${platform}`)
  if (sessionSecret && !local && sessionSecret.split(',').some((s) => s.trim().length < 32)) {
    refuse('SESSION_SECRET', 'each comma-separated secret must be at least 32 characters')
  }
  // A value out of bounds already has its own line.
  const { sessionRememberMaxAgeSeconds: remember, sessionMaxAgeSeconds: maxAge } = settings
  if (Number.isInteger(remember) && remember >= 300 && remember < maxAge) {
    refuse('SESSION_REMEMBER_MAX_AGE', `must be at least SESSION_MAX_AGE (${maxAge})`)
  }
  const { logo, logoDark, accent, accentDark } = settings.brand
  if (logoDark && !logo) refuse('BRAND_LOGO_DARK', 'needs BRAND_LOGO, the logo of the light scheme')
  if (accentDark && !accent) refuse('BRAND_ACCENT_DARK', 'needs BRAND_ACCENT, the accent of the light scheme')
  if (identifierHashSecret && !local && identifierHashSecret.length < 32) {
    refuse('IDENTIFIER_HASH_SECRET', 'must be at least 32 characters')
  }
})

/** The settings as parsed, and the values derived from them. */
function toConfig(settings: z.output<typeof SettingsSchema>) {
  const { publicUrl, sessionSecret, redirectAllowedOrigins, flagService, ssoProviderName, brand, ...config } = settings
  const { apiKey, emulatorHost, ...identity } = settings.identity
  return {
    ...config,
    publicOrigin: new URL(publicUrl ?? `http://localhost:${config.port}`).origin,
    isProductionLike: !LOCAL_PLATFORMS.includes(config.platform),
    identity: {
      ...identity,
      apiKey: apiKey ?? 'demo-api-key',
      emulatorOrigin: emulatorHost ? parseEmulatorHost(emulatorHost) : null,
    },
    sessionSecrets: list(sessionSecret ?? DEV_SESSION_SECRET),
    redirectAllowedOrigins: list(redirectAllowedOrigins ?? ''),
    rateLimits: {
      ...config.rateLimits,
      /** A start is no guess, and the sign-in page makes one per view: four times sign-in's count. */
      passkeyStartPerIp: config.rateLimits.signInPerIp * 4,
      passkeyChallenge: 1,
    },
    flagsRemote: flagService.url
      ? { url: flagService.url, headers: flagService.headers ?? [], maxAgeMs: flagService.maxAge * 1000 }
      : null,
    ssoProviderName: config.ssoProviderId ? providerName(config.ssoProviderId, ssoProviderName) : null,
    brand: {
      name: { fr: brand.nameFr ?? brand.name, en: brand.nameEn ?? brand.name },
      logo: brand.logo,
      logoDark: brand.logoDark,
      accent: brand.accent && { light: toHex(brand.accent), dark: toHex(brand.accentDark ?? darkAccent(brand.accent)) },
    },
  }
}

export type ConfigResult = { ok: true; config: Config; warnings: string[] } | { ok: false; errors: string[] }

function warningsFor({ sessionSecret, platform }: z.output<typeof SettingsSchema>): string[] {
  const short = sessionSecret?.split(',').some((secret) => secret.trim().length < 32)
  return short && LOCAL_PLATFORMS.includes(platform)
    ? [`SESSION_SECRET: shorter than 32 characters, accepted only because PLATFORM is ${platform}`]
    : []
}

/** Local only: elsewhere the schema itself requires a key. */
export function identityMissing(env: Record<string, string | undefined>, config: Config): string | null {
  if (config.platform !== 'local' || config.identity.emulatorOrigin || env.IDENTITY_API_KEY) return null
  return 'No identity service: set FIREBASE_AUTH_EMULATOR_HOST to try the portal against an emulator (npm start does this for you), or IDENTITY_API_KEY and FIREBASE_PROJECT_ID for a project.'
}

export function parseConfig(env: Record<string, string | undefined>): ConfigResult {
  const result = SettingsSchema.safeParse(inputOf(SETTINGS, env))
  if (!result.success) {
    return { ok: false, errors: result.error.issues.map((issue) => `${nameOf(issue.path)}: ${issue.message}`) }
  }
  return { ok: true, config: toConfig(result.data), warnings: warningsFor(result.data) }
}

/** The environment in the shape of the settings. */
function inputOf(shape: z.ZodRawShape, env: Record<string, string | undefined>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(shape).map(([key, schema]) => {
      if (schema instanceof z.ZodObject) return [key, inputOf(schema.shape, env)]
      // An empty variable means "not set", as operators expect from `FOO= npm run serve`.
      return [key, env[variableOf(schema)!] || undefined]
    }),
  )
}

/** A setting's problem is named by its environment variable; a cross-check's path is the variable already. */
function nameOf(path: PropertyKey[]): string {
  const schema = path.reduce<z.core.$ZodType | undefined>(
    (parent, key) => (parent instanceof z.ZodObject ? parent.shape[key as string] : undefined),
    SettingsSchema,
  )
  return (schema && variableOf(schema)) ?? (path.join('.') || 'environment')
}

let cached: Config | undefined

export function getConfig(): Config {
  if (cached) return cached
  const result = parseConfig(process.env)
  if (!result.ok) {
    const error = new Error(`Invalid configuration:\n${result.errors.join('\n')}`)
    throw Object.assign(error, { name: 'ConfigError' })
  }
  cached = result.config
  return cached
}
