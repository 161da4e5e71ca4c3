import type { Redis } from 'ioredis'
import { setTimeout as sleep } from 'node:timers/promises'
import { getIdentity } from '~/.server/identity'
import { recordDependency } from '~/.server/ops/metrics'
import { getRateLimits } from '~/.server/policy/rate-limit'

/**
 * `GET /readyz`: whether this process should get traffic (ADR 029). Ready (200) while it can serve;
 * 503 only while starting (before serve() listens) and from the first moment of shutdown. The
 * identity service and Redis are reported, not obeyed: the portal answers their outage itself
 * (a 503 page, the in-memory limits), and a probe that followed them would take every replica out
 * of the load balancer at once. Their state comes from one probe at a time, reused for `cacheMs`,
 * so probes cost no identity call each; a request waits at most `waitMs` for a probe under way.
 * `GET /healthz` (alive) checks nothing.
 */

export type DependencyState = 'up' | 'down' | 'unknown'
export interface ReadinessReport {
  status: 'ok' | 'starting' | 'draining'
  dependencies: Record<string, DependencyState>
}

export interface ReadinessOptions {
  /** A cheap call to the identity service. */
  identity: () => Promise<unknown>
  /** The shared rate-limit store, or null when there is none. */
  redis: () => Redis | null
  /** How long one dependency may take to answer a probe. */
  probeTimeoutMs?: number
  /** How long a probe's answer is reused. */
  cacheMs?: number
  /** How long a request waits for a probe under way before answering with what is known. */
  waitMs?: number
  /** Told each dependency's state after each probe; default: the portal_dependency_up gauge. */
  onProbe?: (dependency: 'identity' | 'redis', up: boolean) => void
}

export interface Readiness {
  check(): Promise<ReadinessReport>
  /** The server listens: ready from now on (serve.ts), and the first probe starts. */
  markStarted(): void
  /** From now on every check answers 503 (called first thing on SIGTERM). */
  startShutdown(): void
  readonly shuttingDown: boolean
}

export const READINESS_PROBE_TIMEOUT_MS = 2_000
export const READINESS_CACHE_MS = 5_000
export const READINESS_WAIT_MS = 500

type CheckState = 'up' | 'down'

/** 'up' when `task` succeeds within `ms`, 'down' otherwise; never rejects. The signal aborts at the deadline. */
async function within(ms: number, task: (signal: AbortSignal) => Promise<unknown>): Promise<CheckState> {
  const controller = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<CheckState>((resolve) => {
    timer = setTimeout(() => {
      controller.abort()
      resolve('down')
    }, ms)
  })
  try {
    return await Promise.race([
      Promise.resolve()
        .then(() => task(controller.signal))
        .then(
          (): CheckState => 'up',
          (): CheckState => 'down',
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

export function createReadiness({
  identity,
  redis,
  probeTimeoutMs = READINESS_PROBE_TIMEOUT_MS,
  cacheMs = READINESS_CACHE_MS,
  waitMs = READINESS_WAIT_MS,
  onProbe = recordDependency,
}: ReadinessOptions): Readiness {
  let started = false
  let shuttingDown = false
  let known: { identity: DependencyState; redis: DependencyState } = { identity: 'unknown', redis: 'unknown' }
  let probedAt = -Infinity
  // At most one probe at a time, whatever the number of load balancers and strangers asking.
  let probing: Promise<void> | null = null

  function probe(): Promise<void> {
    probing ??= (async () => {
      const store = redis()
      const [identityState, redisState] = await Promise.all([
        within(probeTimeoutMs, () => identity()),
        store ? within(probeTimeoutMs, (signal) => ping(store, signal)) : Promise.resolve('unknown' as const),
      ])
      known = { identity: identityState, redis: redisState }
      onProbe('identity', identityState === 'up')
      if (store) onProbe('redis', redisState === 'up')
    })()
      .catch(() => undefined)
      .finally(() => {
        probedAt = performance.now()
        probing = null
      })
    return probing
  }

  function dependencies(): Record<string, DependencyState> {
    return redis() ? { ...known } : { identity: known.identity }
  }

  return {
    get shuttingDown() {
      return shuttingDown
    },
    markStarted() {
      started = true
      void probe()
    },
    startShutdown() {
      shuttingDown = true
    },
    async check() {
      if (shuttingDown) return { status: 'draining', dependencies: dependencies() }
      if (!started) return { status: 'starting', dependencies: dependencies() }
      if (probing || performance.now() - probedAt > cacheMs) await Promise.race([probe(), sleep(waitMs)])
      // Shutdown may have started while the probe ran.
      return { status: shuttingDown ? 'draining' : 'ok', dependencies: dependencies() }
    },
  }
}

/** The process's readiness: serve.ts marks it started and starts the shutdown, app.ts answers /readyz. */
const processReadiness = createReadiness({
  identity: () => getIdentity().getProjectConfig(),
  redis: () => getRateLimits().redis,
})

export const getReadiness = (): Readiness => processReadiness
