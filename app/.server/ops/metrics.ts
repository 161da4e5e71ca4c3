import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { version } from '../../../package.json'

declare const __PORTAL_COMMIT__: string | undefined

/** Every label takes values from a small fixed set: never a raw URL, an address or an email. */

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

export type CacheName = 'flags' | 'recaptcha' | 'authorized_domains'
const cacheFilledAt = new Map<CacheName, number>()

function createMetrics() {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const registers = [registry]
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter({ name, help, labelNames, registers })
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge({ name, help, labelNames, registers })
  const seconds = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Histogram({ name, help, labelNames, buckets: SECONDS, registers })
  return {
    registry,
    httpRequestDuration: seconds(
      'http_request_duration_seconds',
      'HTTP requests on the public port, by route pattern, method and status.',
      ['route', 'method', 'status'],
    ),
    signIn: counter(
      'portal_sign_in_total',
      "Password sign-ins by outcome: 'success' or the auth/* code of the failure.",
      ['outcome'],
    ),
    passwordResetRequests: counter(
      'portal_password_reset_requests_total',
      "Password reset requests: 'accepted' (an email is attempted) or 'limited' (rate limit, none sent).",
      ['outcome'],
    ),
    signUps: counter(
      'portal_sign_up_total',
      "Sign-ups by outcome: 'created', 'existing' (the address had an account: its owner is sent a reset), 'limited' (rate limit, nothing done), or the auth/* code of a failure.",
      ['outcome'],
    ),
    captcha: counter(
      'portal_captcha_total',
      "Calls protected by reCAPTCHA Enterprise, by action (signInWithPassword, signUpPassword, getOobCode, mfaSmsSignIn, mfaSmsEnrollment) and outcome: 'passed', 'refused' (a token the service refused), 'missing' (none sent, one demanded), 'absent' (none sent, none needed).",
      ['action', 'outcome'],
    ),
    secondFactor: counter(
      'portal_second_factor_total',
      "Second-factor steps at sign-in, by factor ('phone', 'totp', 'none') and outcome ('required', 'sent', 'success', 'wrong-code', 'expired', 'invalid', 'limited', 'captcha', 'error').",
      ['factor', 'outcome'],
    ),
    rateLimitHits: counter('portal_rate_limit_hits_total', 'Requests refused by a rate limiter, by limiter.', [
      'limiter',
    ]),
    pageShells: counter(
      'portal_page_shell_total',
      "Anonymous page views answered from a page shell ('hit') or rendered to make one ('miss'); ADR 021.",
      ['outcome'],
    ),
    dependencyUp: gauge(
      'portal_dependency_up',
      "Whether a dependency answered the last readiness probe (1) or not (0): 'identity' and, with REDIS_URL, 'redis'. /readyz stays 200 either way (ADR 029).",
      ['dependency'],
    ),
    buildInfo: gauge(
      'portal_build_info',
      'Always 1: the version, the commit it was built from and the Node.js version running it.',
      ['version', 'commit', 'node'],
    ),
    identityInFlight: gauge(
      'portal_identity_calls_in_flight',
      'Calls waiting on the identity service now (REST calls and session checks), against portal_identity_max_in_flight.',
    ),
    identityMaxInFlight: gauge(
      'portal_identity_max_in_flight',
      'IDENTITY_MAX_IN_FLIGHT: past it, a call is refused at once (503).',
    ),
    rateLimitStore: gauge(
      'portal_rate_limit_store',
      "Where the rate-limit counters are kept now: 1 for the current mode, 'redis' (shared) or 'memory' (this process: no REDIS_URL, or Redis unreachable).",
      ['mode'],
    ),
    sessionVerification: seconds(
      'portal_session_verification_seconds',
      "Session cookie checks (one per signed-in page), by outcome: 'signed-in', 'invalid' (a verdict ended it) or 'unavailable' (the service could not judge).",
      ['outcome'],
    ),
    cacheAge: new Gauge({
      name: 'portal_cache_age_seconds',
      help: "Seconds since a cache was last filled by a successful read: 'flags' (the remote flag service), 'recaptcha' (the reCAPTCHA configuration), 'authorized_domains'. No sample until the first fill.",
      labelNames: ['cache'] as const,
      registers,
      // Worked out at scrape time: a cache that stopped refreshing keeps ageing between fills.
      collect() {
        const now = Date.now()
        for (const [cache, at] of cacheFilledAt) this.set({ cache }, (now - at) / 1000)
      },
    }),
    identityCallDuration: seconds(
      'portal_identity_call_duration_seconds',
      "Identity service calls by call name and outcome ('ok' or the auth/* code), retries included.",
      ['call', 'outcome'],
    ),
  }
}

export const metrics = createMetrics()
metrics.buildInfo.set(
  { version, commit: typeof __PORTAL_COMMIT__ === 'string' ? __PORTAL_COMMIT__ : 'unknown', node: process.versions.node },
  1,
)

export function recordRateLimitStore(mode: 'redis' | 'memory'): void {
  metrics.rateLimitStore.set({ mode }, 1)
  metrics.rateLimitStore.set({ mode: mode === 'redis' ? 'memory' : 'redis' }, 0)
}

/** A failed read is no fill: the age goes on growing. */
export function recordCacheFilled(cache: CacheName): void {
  cacheFilledAt.set(cache, Date.now())
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

export function recordHttpRequest(route: string, method: string, status: number, seconds: number): void {
  metrics.httpRequestDuration.observe(
    { route, method: METHODS.has(method) ? method : 'other', status: String(status) },
    seconds,
  )
}

export type SecondFactorOutcome =
  'required' | 'sent' | 'success' | 'wrong-code' | 'expired' | 'invalid' | 'limited' | 'captcha' | 'error'

export function recordDependency(dependency: 'identity' | 'redis', up: boolean): void {
  metrics.dependencyUp.set({ dependency }, up ? 1 : 0)
}

export function recordIdentityCall({ name, ms, code }: { name: string; ms: number; code: string | null }): void {
  metrics.identityCallDuration.observe({ call: name, outcome: code ?? 'ok' }, ms / 1000)
}
