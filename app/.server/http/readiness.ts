import type { Redis } from 'ioredis'
import { setTimeout as sleep } from 'node:timers/promises'
import { getIdentity } from '~/.server/identity'
import { recordDependency } from '~/.server/ops/metrics'
import { getRateLimits } from '~/.server/policy/rate-limit'

// The identity service and Redis are reported, not obeyed: the portal handles their outage
// itself, and a probe that followed them would take every replica out at once (see ADR 029).

type DependencyState = 'up' | 'down' | 'unknown'
interface ReadinessReport {
  status: 'ok' | 'starting' | 'draining'
  dependencies: Record<string, DependencyState>
}

export interface ReadinessOptions {
  identity: () => Promise<unknown>
  redis: () => Redis | null
  probeTimeoutMs?: number
  cacheMs?: number
  waitMs?: number
  onProbe?: (dependency: 'identity' | 'redis', up: boolean) => void
}

export type Readiness = ReturnType<typeof createReadiness>

type CheckState = 'up' | 'down'

/** Down when the task fails or outlasts `ms`; its signal is aborted then, and once the answer is known. */
async function within(ms: number, task: (signal: AbortSignal) => Promise<unknown>): Promise<CheckState> {
  const answered = new AbortController()
  const signal = AbortSignal.any([answered.signal, AbortSignal.timeout(ms)])
  const timedOut = new Promise<'down'>((resolve) => signal.addEventListener('abort', () => resolve('down')))
  const settled = Promise.resolve()
    .then(() => task(signal))
    .then((): CheckState => 'up', (): CheckState => 'down')
  try {
    return await Promise.race([settled, timedOut])
  } finally {
    answered.abort()
  }
}

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
  probeTimeoutMs = 2_000,
  cacheMs = 5_000,
  waitMs = 500,
  onProbe = recordDependency,
}: ReadinessOptions) {
  let started = false
  let shuttingDown = false
  let known: { identity: DependencyState; redis: DependencyState } = { identity: 'unknown', redis: 'unknown' }
  let probedAt = -Infinity
  // At most one probe at a time, however many load balancers and strangers ask.
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
    async check(): Promise<ReadinessReport> {
      if (shuttingDown) return { status: 'draining', dependencies: dependencies() }
      if (!started) return { status: 'starting', dependencies: dependencies() }
      if (probing || performance.now() - probedAt > cacheMs) await Promise.race([probe(), sleep(waitMs)])
      // Shutdown may have started while the probe ran.
      return { status: shuttingDown ? 'draining' : 'ok', dependencies: dependencies() }
    },
  }
}

const processReadiness = createReadiness({
  identity: () => getIdentity().getProjectConfig(),
  redis: () => getRateLimits().redis,
})

export const getReadiness = () => processReadiness
