import type { Redis } from 'ioredis'
import { getIdentity } from '~/.server/identity'
import { getRateLimits } from '~/.server/policy/rate-limit'

/**
 * `GET /readyz`: whether this replica should get traffic. Ready when the identity service
 * answers a cheap read and, when REDIS_URL is set, Redis answers PING, each within 2 s; never
 * once shutdown has started. `GET /healthz` (alive) checks nothing: a dependency outage must not
 * make an orchestrator restart every replica.
 */

export type CheckState = 'ok' | 'fail'
export interface ReadinessReport {
  status: 'ok' | 'unavailable'
  checks: Record<string, CheckState>
}

export interface ReadinessOptions {
  /** A cheap call to the identity service. */
  identity: () => Promise<unknown>
  /** The shared rate-limit store, or null when there is none. */
  redis: () => Redis | null
  timeoutMs?: number
}

export interface Readiness {
  check(): Promise<ReadinessReport>
  /** From now on every check answers 503 (called first thing on SIGTERM). */
  startShutdown(): void
  readonly shuttingDown: boolean
}

export const READINESS_TIMEOUT_MS = 2_000

/** 'ok' when `task` succeeds within `ms`, 'fail' otherwise; never rejects. The signal aborts at the deadline. */
async function within(ms: number, task: (signal: AbortSignal) => Promise<unknown>): Promise<CheckState> {
  const controller = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<CheckState>((resolve) => {
    timer = setTimeout(() => {
      controller.abort()
      resolve('fail')
    }, ms)
  })
  try {
    return await Promise.race([
      Promise.resolve()
        .then(() => task(controller.signal))
        .then(
          (): CheckState => 'ok',
          (): CheckState => 'fail',
        ),
      timeout,
    ])
  } finally {
    clearTimeout(timer)
    controller.abort()
  }
}

/** PING, waiting for a connection that is still being (re)established rather than failing at once. */
async function ping(redis: Redis, signal: AbortSignal): Promise<void> {
  if (redis.status !== 'ready') {
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        redis.off('ready', onReady)
        redis.off('end', onEnd)
        signal.removeEventListener('abort', onAbort)
        if (error) reject(error)
        else resolve()
      }
      const onReady = () => settle()
      const onEnd = () => settle(new Error('redis connection ended'))
      const onAbort = () => settle(new Error('redis not ready in time'))
      redis.on('ready', onReady)
      redis.on('end', onEnd)
      signal.addEventListener('abort', onAbort)
      if (signal.aborted) onAbort()
    })
  }
  const answer = await redis.ping()
  if (answer !== 'PONG') throw new Error(`unexpected PING answer ${answer}`)
}

export function createReadiness({ identity, redis, timeoutMs = READINESS_TIMEOUT_MS }: ReadinessOptions): Readiness {
  let shuttingDown = false
  // Probes from several load balancers share one identity call instead of piling up behind a slow service.
  let identityInFlight: Promise<CheckState> | null = null

  function identityCheck(): Promise<CheckState> {
    identityInFlight ??= within(timeoutMs, () => identity()).finally(() => {
      identityInFlight = null
    })
    return identityInFlight
  }

  return {
    get shuttingDown() {
      return shuttingDown
    },
    startShutdown() {
      shuttingDown = true
    },
    async check() {
      if (shuttingDown) return { status: 'unavailable', checks: { shutdown: 'fail' } }
      const store = redis()
      const [identityState, redisState] = await Promise.all([
        identityCheck(),
        store ? within(timeoutMs, (signal) => ping(store, signal)) : Promise.resolve(null),
      ])
      const checks: Record<string, CheckState> = { identity: identityState }
      if (redisState) checks.redis = redisState
      // Shutdown may have started while the checks ran.
      if (shuttingDown) checks.shutdown = 'fail'
      const ok = Object.values(checks).every((state) => state === 'ok')
      return { status: ok ? 'ok' : 'unavailable', checks }
    },
  }
}

/** The process's readiness: serve.ts starts the shutdown, app.ts answers /readyz. */
const processReadiness = createReadiness({
  identity: () => getIdentity().getProjectConfig(),
  redis: () => getRateLimits().redis,
})

export const getReadiness = (): Readiness => processReadiness
