import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from 'pino'
import { Pool } from 'undici'
import { z } from 'zod'
import { logger as defaultLogger } from '~/.server/ops/logger'
import { recordIdentityCall } from '~/.server/ops/metrics'
import {
  IdentityError,
  SERVICE_ERRORS,
  authCodeFor,
  multiFactorRequired,
  serviceErrorName,
  type AuthCode,
  type SecondFactor,
} from './errors'

/**
 * The Identity Toolkit (Firebase Auth / Google Identity Platform) REST API, server side only.
 * One generic call() does URL, API key, time-out, retries, parsing, error mapping and logging;
 * each endpoint below is a short function with its zod schema. Every failure is an IdentityError.
 */

// The only place in app/ and server/ where this host name appears.
const HOST = 'identitytoolkit.googleapis.com'

/** Statuses worth a second try, for calls that cannot have changed anything. */
const RETRY_STATUSES = new Set([408, 409, 425, 429, 500, 502, 503, 504])
const CLIENT_TYPE = 'CLIENT_TYPE_WEB'
const RECAPTCHA_VERSION = 'RECAPTCHA_ENTERPRISE'

export interface IdentityClientOptions {
  apiKey: string
  /** e.g. `http://127.0.0.1:9099`: every call then goes to `${emulatorOrigin}/<host>/…` */
  emulatorOrigin: string | null
  tenantId: string | null
  projectId: string
  /** The budget of one call, retries included. */
  timeoutMs: number
  /**
   * Calls that may wait on the service at once; beyond that a call fails at once. A service that
   * hangs would otherwise pile up every visitor's request in memory until the process dies.
   */
  maxInFlight?: number
  logger?: Pick<Logger, 'debug' | 'info'>
  /** Told of every call when it ends (code null on success); default: the Prometheus histogram. */
  onCall?: (call: { name: string; ms: number; code: AuthCode | null }) => void
}

export type OobRequestType = 'PASSWORD_RESET' | 'EMAIL_SIGNIN' | 'VERIFY_EMAIL' | 'VERIFY_AND_CHANGE_EMAIL'
export type RecaptchaEnforcement = 'OFF' | 'AUDIT' | 'ENFORCE'

export interface SendOobCodeRequest {
  requestType: OobRequestType
  /** PASSWORD_RESET and EMAIL_SIGNIN */
  email?: string
  /** VERIFY_EMAIL and VERIFY_AND_CHANGE_EMAIL */
  idToken?: string
  /** VERIFY_AND_CHANGE_EMAIL */
  newEmail?: string
  continueUrl?: string
  /** The visitor's language (e.g. `fr`), sent as X-Firebase-Locale; ignored unless a language tag. */
  locale?: string
  /** A reCAPTCHA Enterprise token, when the project enforces it. */
  captchaResponse?: string
}

export interface UpdateRequest {
  idToken?: string
  /** Confirms a VERIFY_EMAIL / VERIFY_AND_CHANGE_EMAIL / RECOVER_EMAIL code. */
  oobCode?: string
  email?: string
  password?: string
  displayName?: string
  /** New tokens in the answer (the old ones stop working after a password or email change). Default: with idToken. */
  returnSecureToken?: boolean
}

const expiresIn = z.coerce.number().int().positive()

const SignInSchema = z.object({
  idToken: z.string().min(1),
  refreshToken: z.string().min(1),
  expiresIn,
  localId: z.string().min(1),
  email: z.string().default(''),
})
export type SignInResult = z.output<typeof SignInSchema>

const EmailLinkSchema = SignInSchema.extend({ isNewUser: z.boolean().default(false) })
export type EmailLinkSignInResult = z.output<typeof EmailLinkSchema>

const IdpSchema = z
  .object({
    idToken: z.string().min(1),
    refreshToken: z.string().min(1),
    expiresIn,
    localId: z.string().min(1),
    email: z.string().optional(),
    emailVerified: z.boolean().default(false),
    providerId: z.string().optional(),
    federatedId: z.string().optional(),
    displayName: z.string().optional(),
    isNewUser: z.boolean().default(false),
    pendingToken: z.string().optional(),
    oauthIdToken: z.string().optional(),
    oauthAccessToken: z.string().optional(),
  })
  .transform(
    ({ email, providerId, federatedId, displayName, pendingToken, oauthIdToken, oauthAccessToken, ...rest }) => ({
      ...rest,
      email: email ?? null,
      providerId: providerId ?? null,
      federatedId: federatedId ?? null,
      displayName: displayName ?? null,
      pendingToken: pendingToken ?? null,
      oauthIdToken: oauthIdToken ?? null,
      oauthAccessToken: oauthAccessToken ?? null,
    }),
  )
export type IdpSignInResult = z.output<typeof IdpSchema>

/**
 * One enrolled second factor as the service lists it: `phoneInfo` is the masked number
 * (`+*******0100`), `totpInfo` an empty object for an authenticator app. Any other kind (a
 * passkey, a kind added later) is left out: the portal cannot ask for it.
 */
const MfaEnrollmentSchema = z
  .object({
    mfaEnrollmentId: z.string().min(1),
    displayName: z.string().optional(),
    phoneInfo: z.string().optional(),
    totpInfo: z.object({}).passthrough().optional(),
  })
  .transform((e): SecondFactor | null => {
    const displayName = e.displayName?.trim() || null
    if (e.phoneInfo) return { kind: 'phone', id: e.mfaEnrollmentId, displayName, phone: e.phoneInfo }
    if (e.totpInfo) return { kind: 'totp', id: e.mfaEnrollmentId, displayName }
    return null
  })
const MfaPendingSchema = z.object({
  mfaPendingCredential: z.string().min(1),
  mfaInfo: z.array(z.unknown()).default([]),
  email: z.string().optional(),
})
/** The factors of a list, leaving out entries that do not parse or that the portal cannot ask for. */
function factorsOf(list: unknown[]): SecondFactor[] {
  return list.flatMap((item) => {
    const parsed = MfaEnrollmentSchema.safeParse(item)
    return parsed.success && parsed.data ? [parsed.data] : []
  })
}

/** mfaSignIn:start for an SMS factor: the session the code is tied to. */
const MfaStartSchema = z
  .object({ phoneResponseInfo: z.object({ sessionInfo: z.string().min(1) }) })
  .transform((r) => ({ sessionInfo: r.phoneResponseInfo.sessionInfo }))

/** mfaSignIn:finalize: tokens, without expiresIn or localId. */
const MfaFinalizeSchema = z.object({ idToken: z.string().min(1), refreshToken: z.string().min(1) })
export type MfaFinalizeResult = z.output<typeof MfaFinalizeSchema>

export type MfaVerification =
  { kind: 'phone'; sessionInfo: string; code: string } | { kind: 'totp'; enrollmentId: string; code: string }

const ActionCodeSchema = z
  .object({
    requestType: z.enum([
      'PASSWORD_RESET',
      'VERIFY_EMAIL',
      'EMAIL_SIGNIN',
      'RECOVER_EMAIL',
      'VERIFY_AND_CHANGE_EMAIL',
      'REVERT_SECOND_FACTOR_ADDITION',
    ]),
    email: z.string().optional(),
    newEmail: z.string().optional(),
    /** REVERT_SECOND_FACTOR_ADDITION: the factor the link removes (one enrollment; a list is read too). */
    mfaInfo: z.unknown().optional(),
  })
  .transform(({ requestType, email, newEmail, mfaInfo }) => ({
    requestType,
    email: email ?? null,
    newEmail: newEmail ?? null,
    secondFactor: factorsOf(Array.isArray(mfaInfo) ? mfaInfo : mfaInfo === undefined ? [] : [mfaInfo])[0] ?? null,
  }))
export type ActionCodeInfo = z.output<typeof ActionCodeSchema>

const UpdateSchema = z
  .object({
    localId: z.string().optional(),
    email: z.string().optional(),
    emailVerified: z.boolean().default(false),
    idToken: z.string().optional(),
    refreshToken: z.string().optional(),
    expiresIn: expiresIn.optional(),
  })
  .transform(({ localId, email, emailVerified, idToken, refreshToken, expiresIn }) => ({
    localId: localId ?? null,
    email: email ?? null,
    emailVerified,
    tokens: idToken && refreshToken && expiresIn ? { idToken, refreshToken, expiresIn } : null,
  }))
export type UpdateResult = z.output<typeof UpdateSchema>

const AuthUriSchema = z
  .object({
    authUri: z.string().optional(),
    sessionId: z.string().optional(),
    providerId: z.string().optional(),
    registered: z.boolean().default(false),
    signinMethods: z.array(z.string()).default([]),
  })
  .transform((r) => ({
    authUri: r.authUri ?? null,
    sessionId: r.sessionId ?? null,
    providerId: r.providerId ?? null,
    registered: r.registered,
    signinMethods: r.signinMethods,
  }))
export type AuthUriResult = z.output<typeof AuthUriSchema>

const ProjectConfigSchema = z.object({
  projectId: z.string().optional(),
  authorizedDomains: z.array(z.string()).default([]),
})
export type ProjectConfig = z.output<typeof ProjectConfigSchema>

const enforcement = (state: string | undefined): RecaptchaEnforcement =>
  state === 'ENFORCE' || state === 'AUDIT' ? state : 'OFF'
const RecaptchaSchema = z
  .object({
    recaptchaKey: z.string().optional(),
    recaptchaEnforcementState: z
      .array(z.object({ provider: z.string().optional(), enforcementState: z.string().optional() }))
      .default([]),
  })
  .transform((r) => {
    const stateOf = (provider: string) =>
      enforcement(r.recaptchaEnforcementState.find((s) => s.provider === provider)?.enforcementState)
    return {
      /** `projects/…/keys/SITE_KEY` in production */
      recaptchaKey: r.recaptchaKey ?? null,
      siteKey: r.recaptchaKey ? (r.recaptchaKey.split('/').pop() ?? null) : null,
      emailPassword: stateOf('EMAIL_PASSWORD_PROVIDER'),
      phone: stateOf('PHONE_PROVIDER'),
    }
  })
export type RecaptchaConfig = z.output<typeof RecaptchaSchema>
const RECAPTCHA_OFF: RecaptchaConfig = { recaptchaKey: null, siteKey: null, emailPassword: 'OFF', phone: 'OFF' }

const Empty = z.object({})

/** What the service answers when it fails: `{ error: { code, message, errors?, details? } }`. */
const ErrorBody = z.object({
  error: z.object({
    message: z.string().optional(),
    details: z.array(z.object({ reason: z.string().optional() })).optional(),
  }),
})

interface CallSpec<S extends z.ZodType> {
  /** The name in the logs. */
  name: string
  path: string
  schema: S
  method?: 'GET' | 'POST'
  /** Cannot change state, so it is retried once. */
  read?: boolean
  query?: Record<string, string>
  json?: Record<string, unknown>
  headers?: Record<string, string>
  /** A status that is an answer here, not a failure: the caller handles it, and it is not logged as one. */
  expectedStatus?: number
}

export function createIdentityClient(options: IdentityClientOptions) {
  const log = options.logger ?? defaultLogger
  const onCall = options.onCall ?? recordIdentityCall
  const report: typeof onCall = (call) => {
    try {
      onCall(call)
    } catch {
      // Metrics never change the outcome of a call.
    }
  }
  const pools = new Map<string, Pool>()

  function poolFor(origin: string): Pool {
    let pool = pools.get(origin)
    if (!pool) {
      pool = new Pool(origin, { connections: 32, keepAliveTimeout: 10_000, maxResponseSize: 1024 * 1024 })
      pools.set(origin, pool)
    }
    return pool
  }

  /** Sends the request, retrying a read once; answers the final status and body text. */
  async function exchange(spec: CallSpec<z.ZodType>): Promise<{ status: number; text: string }> {
    const { origin, path } = requestTarget(options, spec.path, spec.query)
    const json = spec.json && options.tenantId ? { ...spec.json, tenantId: options.tenantId } : spec.json
    const body = json ? JSON.stringify(json) : undefined
    const headers: Record<string, string> = { accept: 'application/json', ...spec.headers }
    if (json) headers['content-type'] = 'application/json'
    const signal = AbortSignal.timeout(options.timeoutMs)
    const attempts = spec.read ? 2 : 1
    for (let attempt = 1; ; attempt++) {
      const canRetry = attempt < attempts
      let response: { status: number; text: string }
      try {
        const res = await poolFor(origin).request({ method: spec.method ?? 'POST', path, headers, body, signal })
        response = { status: res.statusCode, text: await res.body.text() }
      } catch {
        // Refused, reset, closed or timed out. A read is tried again while time remains.
        if (canRetry && !signal.aborted) {
          await pause(signal)
          continue
        }
        throw new IdentityError('auth/network-request-failed')
      }
      if (canRetry && RETRY_STATUSES.has(response.status)) {
        await pause(signal)
        continue
      }
      return response
    }
  }

  const maxInFlight = options.maxInFlight ?? 256
  let inFlight = 0

  async function call<S extends z.ZodType>(spec: CallSpec<S>): Promise<z.output<S>> {
    const started = performance.now()
    let status: number | undefined
    const admitted = inFlight < maxInFlight
    if (admitted) inFlight++
    try {
      if (!admitted) throw new IdentityError('auth/network-request-failed', undefined, 'TOO_MANY_CALLS_IN_FLIGHT')
      const response = await exchange(spec)
      status = response.status
      const result = interpret(response.status, response.text, spec.schema)
      const ms = performance.now() - started
      log.debug({ call: spec.name, status, code: null, ms: Math.round(ms) }, 'identity call')
      report({ name: spec.name, ms, code: null })
      return result
    } catch (caught) {
      const error = caught instanceof IdentityError ? caught : new IdentityError('auth/internal-error', status)
      const entry = { call: spec.name, status: error.status ?? status ?? null, code: error.code, reason: error.reason }
      const ms = performance.now() - started
      const expected = error.status !== undefined && error.status === spec.expectedStatus
      if (expected) log.debug({ ...entry, ms: Math.round(ms) }, 'identity call')
      else log.info({ ...entry, ms: Math.round(ms) }, 'identity call failed')
      report({ name: spec.name, ms, code: expected ? null : error.code })
      throw error
    } finally {
      if (admitted) inFlight--
    }
  }

  return {
    async signInWithPassword(
      email: string,
      password: string,
      extra: { captchaResponse?: string } = {},
    ): Promise<SignInResult> {
      return call({
        name: 'signInWithPassword',
        path: '/v1/accounts:signInWithPassword',
        json: {
          email,
          password,
          returnSecureToken: true,
          clientType: CLIENT_TYPE,
          ...captcha('captchaResponse', extra.captchaResponse),
        },
        schema: SignInSchema,
      })
    },

    /**
     * Sends the SMS code of a second factor at sign-in. Where the project demands reCAPTCHA
     * Enterprise for phone sign-in, `captchaResponse` is a token made for the action `mfaSmsSignIn`.
     */
    async startMfaSignIn(request: {
      pendingCredential: string
      enrollmentId: string
      captchaResponse?: string
    }): Promise<{ sessionInfo: string }> {
      return call({
        name: 'mfaSignInStart',
        path: '/v2/accounts/mfaSignIn:start',
        json: {
          mfaPendingCredential: request.pendingCredential,
          mfaEnrollmentId: request.enrollmentId,
          phoneSignInInfo: request.captchaResponse
            ? { captchaResponse: request.captchaResponse, clientType: CLIENT_TYPE, recaptchaVersion: RECAPTCHA_VERSION }
            : {},
        },
        schema: MfaStartSchema,
      })
    },

    /** Completes a sign-in with the second factor's code: an SMS code with its session, or a TOTP code. */
    async finalizeMfaSignIn(pendingCredential: string, verification: MfaVerification): Promise<MfaFinalizeResult> {
      return call({
        name: 'mfaSignInFinalize',
        path: '/v2/accounts/mfaSignIn:finalize',
        json:
          verification.kind === 'phone'
            ? {
                mfaPendingCredential: pendingCredential,
                phoneVerificationInfo: { sessionInfo: verification.sessionInfo, code: verification.code },
              }
            : {
                mfaPendingCredential: pendingCredential,
                mfaEnrollmentId: verification.enrollmentId,
                totpVerificationInfo: { verificationCode: verification.code },
              },
        schema: MfaFinalizeSchema,
      })
    },

    /** Sends an email with a code: PASSWORD_RESET, EMAIL_SIGNIN, VERIFY_EMAIL, VERIFY_AND_CHANGE_EMAIL. */
    async sendOobCode(request: SendOobCodeRequest): Promise<void> {
      const { requestType, email, idToken, newEmail, continueUrl, locale, captchaResponse } = request
      const protectedFlow = requestType === 'PASSWORD_RESET' || requestType === 'EMAIL_SIGNIN'
      await call({
        name: 'sendOobCode',
        path: '/v1/accounts:sendOobCode',
        headers: locale && isLanguageTag(locale) ? { 'X-Firebase-Locale': locale } : {},
        json: {
          requestType,
          email,
          idToken,
          newEmail,
          continueUrl,
          ...(requestType === 'EMAIL_SIGNIN' ? { canHandleCodeInApp: true } : {}),
          ...(protectedFlow ? { clientType: CLIENT_TYPE, ...captcha('captchaResp', captchaResponse) } : {}),
        },
        schema: Empty,
      })
    },

    /** Checks a code without spending it. */
    async checkActionCode(oobCode: string): Promise<ActionCodeInfo> {
      return call({
        name: 'checkActionCode',
        path: '/v1/accounts:resetPassword',
        read: true,
        json: { oobCode },
        schema: ActionCodeSchema,
      })
    },

    /** Spends a PASSWORD_RESET code. */
    async resetPassword(oobCode: string, newPassword: string): Promise<ActionCodeInfo> {
      return call({
        name: 'resetPassword',
        path: '/v1/accounts:resetPassword',
        json: { oobCode, newPassword },
        schema: ActionCodeSchema,
      })
    },

    async update(request: UpdateRequest): Promise<UpdateResult> {
      const returnSecureToken = request.returnSecureToken ?? Boolean(request.idToken)
      return call({
        name: 'update',
        path: '/v1/accounts:update',
        json: { ...request, returnSecureToken },
        schema: UpdateSchema,
      })
    },

    async signInWithEmailLink(email: string, oobCode: string): Promise<EmailLinkSignInResult> {
      return call({
        name: 'signInWithEmailLink',
        path: '/v1/accounts:signInWithEmailLink',
        json: { email, oobCode },
        schema: EmailLinkSchema,
      })
    },

    /** The provider's sign-in URL (authUri) and the sessionId to give back to signInWithIdp. */
    async createAuthUri(request: {
      providerId: string
      continueUri: string
      customParameter?: Record<string, string>
      oauthScope?: string
    }): Promise<AuthUriResult> {
      return call({
        name: 'createAuthUri',
        path: '/v1/accounts:createAuthUri',
        read: true,
        json: { ...request },
        schema: AuthUriSchema,
      })
    },

    /** Completes a provider sign-in: postBody (the provider's answer) or pendingToken. */
    async signInWithIdp(request: {
      requestUri: string
      postBody?: string
      pendingToken?: string
      sessionId?: string
    }): Promise<IdpSignInResult> {
      return call({
        name: 'signInWithIdp',
        path: '/v1/accounts:signInWithIdp',
        json: { ...request, returnSecureToken: true, returnIdpCredential: true },
        schema: IdpSchema,
      })
    },

    /** The project's public configuration (what the Firebase JS SDK reads): authorizedDomains. */
    async getProjectConfig(): Promise<ProjectConfig> {
      return call({
        name: 'getProjectConfig',
        method: 'GET',
        path: '/v1/projects',
        read: true,
        schema: ProjectConfigSchema,
      })
    },

    /** reCAPTCHA Enterprise site key and enforcement. The emulator has no reCAPTCHA: there it is OFF. */
    async getRecaptchaConfig(): Promise<RecaptchaConfig> {
      // The Auth emulator answers 501 NOT_IMPLEMENTED for this call: there reCAPTCHA is off.
      const notImplemented = options.emulatorOrigin ? 501 : undefined
      const query: Record<string, string> = { clientType: CLIENT_TYPE, version: RECAPTCHA_VERSION }
      if (options.tenantId) query.tenantId = options.tenantId
      try {
        return await call({
          name: 'getRecaptchaConfig',
          method: 'GET',
          path: '/v2/recaptchaConfig',
          read: true,
          query,
          schema: RecaptchaSchema,
          expectedStatus: notImplemented,
        })
      } catch (error) {
        if (notImplemented && error instanceof IdentityError && error.status === notImplemented) return RECAPTCHA_OFF
        throw error
      }
    },

    /** Closes the connection pools (at shutdown). */
    async close(): Promise<void> {
      const all = [...pools.values()]
      pools.clear()
      await Promise.all(all.map((pool) => pool.close()))
    },
  }
}

export type IdentityClient = ReturnType<typeof createIdentityClient>

/** Where a call goes: the Google host, or the emulator with the host name as the first path segment. */
export function requestTarget(
  options: Pick<IdentityClientOptions, 'apiKey' | 'emulatorOrigin'>,
  path: string,
  query: Record<string, string> = {},
): { origin: string; path: string } {
  const search = new URLSearchParams({ ...query, key: options.apiKey }).toString()
  return options.emulatorOrigin
    ? { origin: options.emulatorOrigin, path: `/${HOST}${path}?${search}` }
    : { origin: `https://${HOST}`, path: `${path}?${search}` }
}

/** Turns an answer into a value or an IdentityError. */
function interpret<S extends z.ZodType>(status: number, text: string, schema: S): z.output<S> {
  const body = parseJson(text)
  if (status < 200 || status > 299) throw errorFrom(status, body)
  if (body === undefined) throw new IdentityError('auth/internal-error', status, 'MALFORMED_RESPONSE')
  // Some successful answers are failures: the JS SDK reads these the same way.
  const inBand = z
    .object({
      errorMessage: z.string().optional(),
      needConfirmation: z.boolean().optional(),
      mfaPendingCredential: z.string().optional(),
    })
    .safeParse(body)
  if (inBand.success) {
    const { errorMessage, needConfirmation, mfaPendingCredential } = inBand.data
    if (errorMessage)
      throw new IdentityError(authCodeFor(errorMessage), status, serviceErrorName(errorMessage) ?? undefined)
    if (needConfirmation) throw new IdentityError(SERVICE_ERRORS.NEED_CONFIRMATION, status, 'NEED_CONFIRMATION')
    if (mfaPendingCredential) {
      const pending = MfaPendingSchema.parse(body)
      throw multiFactorRequired(status, {
        pendingCredential: pending.mfaPendingCredential,
        factors: factorsOf(pending.mfaInfo),
        email: pending.email || null,
      })
    }
  }
  const parsed = schema.safeParse(body)
  if (!parsed.success) throw new IdentityError('auth/internal-error', status, 'UNEXPECTED_RESPONSE')
  return parsed.data
}

/** The code for an error answer: its message name, else an ErrorInfo reason (API_KEY_INVALID), else by status. */
function errorFrom(status: number, body: unknown): IdentityError {
  const parsed = ErrorBody.safeParse(body)
  const names = parsed.success
    ? [parsed.data.error.message ?? '', ...(parsed.data.error.details ?? []).map((d) => d.reason ?? '')]
        .map(serviceErrorName)
        .filter((name): name is string => name !== null)
    : []
  const known = names.find((name) => authCodeFor(name) !== 'auth/internal-error')
  const code: AuthCode = known ? authCodeFor(known) : status === 429 ? 'auth/too-many-requests' : 'auth/internal-error'
  return new IdentityError(code, status, known ?? names[0])
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

function captcha(field: 'captchaResponse' | 'captchaResp', token: string | undefined) {
  return token ? { [field]: token, recaptchaVersion: RECAPTCHA_VERSION } : {}
}

function isLanguageTag(value: string): boolean {
  return value.length <= 35 && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(value)
}

/** 100–300 ms before the retry of a read; the call's time-out still applies. */
async function pause(signal: AbortSignal): Promise<void> {
  try {
    await sleep(100 + Math.random() * 200, undefined, { signal })
  } catch {
    throw new IdentityError('auth/network-request-failed')
  }
}
