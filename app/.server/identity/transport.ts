import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from 'pino'
import { Pool } from 'undici'
import { z } from 'zod'
import { logger as defaultLogger } from '~/.server/ops/logger'
import { metrics, recordIdentityCall } from '~/.server/ops/metrics'
import {
  IdentityError,
  SERVICE_ERRORS,
  authCodeFor,
  groupOf,
  multiFactorRequired,
  serviceErrorName,
  type AuthCode,
} from './errors'
import { MfaPendingSchema, factorsOf } from './schemas'

// The only place in app/ and server/ where this host name appears.
const HOST = 'identitytoolkit.googleapis.com'

const RETRY_STATUSES = new Set([408, 409, 425, 429, 500, 502, 503, 504])
export const CLIENT_TYPE = 'CLIENT_TYPE_WEB'
export const RECAPTCHA_VERSION = 'RECAPTCHA_ENTERPRISE'

export interface IdentityClientOptions {
  apiKey: string
  emulatorOrigin: string | null
  tenantId: string | null
  projectId: string
  timeoutMs: number
  /** Beyond this a call fails at once: a hung service would otherwise pile up every visitor's request in memory. */
  maxInFlight?: number
  logger?: Pick<Logger, 'debug' | 'info' | 'warn'>
  onCall?: (call: { name: string; ms: number; code: AuthCode | null }) => void
}

interface CallSpec<S extends z.ZodType> {
  name: string
  path: string
  schema: S
  method?: 'GET' | 'POST'
  read?: boolean
  query?: Record<string, string>
  json?: Record<string, unknown>
  headers?: Record<string, string>
  expectedStatus?: number
}

export type Call = <S extends z.ZodType>(spec: CallSpec<S>) => Promise<z.output<S>>

export function createTransport(options: IdentityClientOptions) {
  const log = options.logger ?? defaultLogger
  const onCall = options.onCall ?? recordIdentityCall
  const report: typeof onCall = (call) => {
    try {
      onCall(call)
    } catch {
      // Metrics never change the outcome of a call.
    }
  }
  let pool: Pool | null = null
  const maxInFlight = options.maxInFlight ?? 256
  metrics.identityMaxInFlight.set(maxInFlight)

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
      let response: { status: number; text: string } | null = null
      try {
        // Never more connections than calls in flight: undici keeps one
        // open, unused, after an aborted request (nodejs/undici#5845).
        pool ??= new Pool(origin, { connections: Math.min(32, maxInFlight), keepAliveTimeout: 10_000, maxResponseSize: 1 << 20 })
        const res = await pool.request({ method: spec.method ?? 'POST', path, headers, body, signal })
        response = { status: res.statusCode, text: await res.body.text() }
      } catch {
        if (!canRetry || signal.aborted) throw new IdentityError('auth/network-request-failed')
      }
      if (response && !(canRetry && RETRY_STATUSES.has(response.status))) return response
      await pause(signal)
    }
  }

  let inFlight = 0
  const occupy = (change: 1 | -1) => {
    inFlight += change
    metrics.identityInFlight.inc(change)
  }
  const tooMany = () => new IdentityError('auth/network-request-failed', undefined, 'TOO_MANY_CALLS_IN_FLIGHT')

  async function call<S extends z.ZodType>(spec: CallSpec<S>): Promise<z.output<S>> {
    const started = performance.now()
    let status: number | undefined
    const admitted = inFlight < maxInFlight
    if (admitted) occupy(1)
    try {
      if (!admitted) throw tooMany()
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
      else if (refusedForUs(error)) log.warn({ ...entry, ms: Math.round(ms) }, 'identity call refused')
      else log.info({ ...entry, ms: Math.round(ms) }, 'identity call failed')
      report({ name: spec.name, ms, code: expected ? null : error.code })
      throw error
    } finally {
      if (admitted) occupy(-1)
    }
  }

  // Its slot stays taken until the work ends, so the work must end itself near the
  // deadline (the admin HTTP agent does) or a hang keeps the slot (see ADR 029).
  async function bounded<T>(name: string, work: () => Promise<T>): Promise<T> {
    if (inFlight >= maxInFlight) {
      log.info({ call: name, code: 'auth/network-request-failed', reason: 'TOO_MANY_CALLS_IN_FLIGHT' }, 'identity call failed')
      throw tooMany()
    }
    occupy(1)
    const task = Promise.resolve()
      .then(work)
      .finally(() => occupy(-1))
    let timer: NodeJS.Timeout | undefined
    const timeout = () => new IdentityError('auth/network-request-failed', undefined, 'TIMEOUT')
    const late = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(timeout()), options.timeoutMs)))
    // The work's own failure after the deadline is nobody's to handle.
    task.catch(() => undefined)
    try {
      return await Promise.race([task, late])
    } finally {
      clearTimeout(timer)
    }
  }

  async function close(): Promise<void> {
    const open = pool
    pool = null
    await open?.close()
  }

  return { call, bounded, close }
}

function refusedForUs(error: IdentityError): boolean {
  const group = groupOf(error.code)
  if (group === 'not-allowed' || group === 'misconfigured') return true
  return error.code === 'auth/internal-error' && error.status !== undefined && error.status >= 400 && error.status < 500
}

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

export function captcha(field: 'captchaResponse' | 'captchaResp', token: string | undefined) {
  return token ? { [field]: token, recaptchaVersion: RECAPTCHA_VERSION } : {}
}

async function pause(signal: AbortSignal): Promise<void> {
  try {
    await sleep(100 + Math.random() * 200, undefined, { signal })
  } catch {
    throw new IdentityError('auth/network-request-failed')
  }
}

const ErrorBody = z.object({
  error: z.object({ message: z.string().optional(), details: z.array(z.object({ reason: z.string().optional() })).optional() }),
})
const InBandAnswer = z.object({
  errorMessage: z.string().optional(),
  needConfirmation: z.boolean().optional(),
  mfaPendingCredential: z.string().optional(),
})

/** The service's answer read into a value, or an IdentityError. */
function interpret<S extends z.ZodType>(status: number, text: string, schema: S): z.output<S> {
  const body = parseJson(text)
  if (status < 200 || status > 299) throw errorFrom(status, body)
  if (body === undefined) throw new IdentityError('auth/internal-error', status, 'MALFORMED_RESPONSE')
  // Some successful answers are failures: the JS SDK reads these the same way.
  const inBand = InBandAnswer.safeParse(body)
  if (inBand.success) {
    const { errorMessage, needConfirmation, mfaPendingCredential } = inBand.data
    if (errorMessage) throw new IdentityError(authCodeFor(errorMessage), status, serviceErrorName(errorMessage) ?? undefined)
    if (needConfirmation) throw new IdentityError(SERVICE_ERRORS.NEED_CONFIRMATION, status, 'NEED_CONFIRMATION')
    if (mfaPendingCredential) {
      const { mfaPendingCredential: pendingCredential, mfaInfo, email } = MfaPendingSchema.parse(body)
      throw multiFactorRequired(status, { pendingCredential, factors: factorsOf(mfaInfo), email: email || null })
    }
  }
  const parsed = schema.safeParse(body)
  if (!parsed.success) throw new IdentityError('auth/internal-error', status, 'UNEXPECTED_RESPONSE')
  return parsed.data
}

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
