import { ReplyError } from 'ioredis'
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'
import type { Config } from '~/.server/config'
import { logger } from '~/.server/ops/logger'
import { recordRateLimitStore } from '~/.server/ops/metrics'
import { newRedis } from '~/.server/redis'

// Without Redis, or while it is unreachable, each process counts in its own bounded
// memory: weaker, but never unlimited. Redis must not evict the counters (see ADR 027).

export const WINDOWS = {
  signInPerEmailIp: 15 * 60,
  signInPerIp: 15 * 60,
  signInPerEmail: 60 * 60,
  signInPerDevice: 15 * 60,
  resetPerEmail: 60 * 60,
  resetPerIp: 60 * 60,
  newPasswordPerIp: 15 * 60,
  mfaCodePerPending: 10 * 60,
  mfaCodePerIp: 15 * 60,
  mfaSmsPerPending: 10 * 60,
  /** SMS pumping costs money. */
  mfaSmsPerIp: 60 * 60,
  mfaCodePerAccount: 60 * 60,
  mfaSmsPerAccount: 60 * 60,
  mfaSmsPerPhone: 60 * 60,
  /** A count apart from resets, so that links cannot silence them. */
  linkPerEmail: 60 * 60,
  resetPerDevice: 60 * 60,
  enrolPerIp: 60 * 60,
  enrolPerAccount: 60 * 60,
  enrolSmsPerNumber: 60 * 60,
  emailChangePerAccount: 60 * 60,
  logoutPerIp: 15 * 60,
  /** The sign-in page starts one per view for the browser's autofill. */
  passkeyStartPerIp: 15 * 60,
  passkeyChallenge: 5 * 60,
  signUpPerIp: 60 * 60,
} as const

export type LimiterName = keyof typeof WINDOWS

export interface RateLimitOptions {
  limits: Config['rateLimits']
  redis: Config['redis']
  keyPrefix?: string
  memoryMaxKeys?: number
}

export interface Limiter {
  consume(key: string): Promise<RateLimiterRes>
  reward(key: string, points?: number): Promise<RateLimiterRes>
  delete(key: string): Promise<boolean>
}

// An unreachable Redis sends the call to memory. A Redis that answers with an error (full,
// read-only) still holds the counters, which empty memory would reset: then a consume is refused and
// a failed give-back keeps the point. `insuranceLimiter` would send both to memory (see ADR 061).
function withFallback(redis: RateLimiterRedis, memory: Limiter): Limiter {
  let lastReport = 0
  async function call<T>(op: (limiter: Limiter) => Promise<T>, refusal?: RateLimiterRes): Promise<T> {
    try {
      return await op(redis)
    } catch (err) {
      if (err instanceof RateLimiterRes) throw err
      if (!(err instanceof ReplyError)) return op(memory)
      if (Date.now() - lastReport > 60_000) {
        lastReport = Date.now()
        logger.error(
          { event: 'rate-limit-store-full', limiter: redis.keyPrefix, err },
          'Redis refused a rate-limit write: attempts are refused until it accepts writes (check maxmemory)',
        )
      }
      throw refusal ?? err
    }
  }
  return {
    consume: (key) => call((l) => l.consume(key), new RateLimiterRes(0, NO_ROOM_RETRY_MS, NO_ROOM, false)),
    reward: (key, points = 1) => call((l) => l.reward(key, points)),
    delete: (key) => call((l) => l.delete(key)),
  }
}

type Counter = { value: number; expiresAt: number }

/** More than any limit, so it is refused. */
const NO_ROOM = Number.MAX_SAFE_INTEGER
const NO_ROOM_RETRY_MS = 60_000

// One bounded set for every limiter. When full, expired counters go, then the oldest per-client one (a `…PerIp`
// limiter's); a live per-account counter is never dropped, so with no room its attempt is refused.
// RateLimiterMemory has no bound and a timer per key (see ADR 061).
function memoryCounters(maxKeys: number) {
  const clients = new Map<string, Counter>()
  const accounts = new Map<string, Counter>()
  let lastSweep = 0
  let lastReport = 0
  const size = () => clients.size + accounts.size

  function sweep() {
    const now = (lastSweep = Date.now())
    for (const map of [clients, accounts]) {
      for (const [key, c] of map) if (c.expiresAt <= now) map.delete(key)
    }
  }
  const sweeper = setInterval(sweep, 60_000).unref()

  function room(): boolean {
    if (size() < maxKeys) return true
    // At most one full sweep a second: under a flood the bound costs no O(n) work per request.
    if (Date.now() - lastSweep > 1_000) sweep()
    if (size() < maxKeys) return true
    const oldest = clients.keys().next()
    if (!oldest.done) {
      clients.delete(oldest.value)
      return true
    }
    if (Date.now() - lastReport > 60_000) {
      lastReport = Date.now()
      logger.error(
        { event: 'rate-limit-memory-full', maxKeys },
        'rate-limit memory full of live per-account counters: attempts that need a new one are refused (RATE_LIMIT_MEMORY_MAX_KEYS)',
      )
    }
    return false
  }

  function limiter(keyPrefix: string, points: number, durationSec: number, perClient: boolean): Limiter {
    const map = perClient ? clients : accounts
    const res = (consumed: number, msBeforeNext: number, first: boolean) =>
      new RateLimiterRes(Math.max(points - consumed, 0), msBeforeNext, consumed, first)
    const add = (key: string, change: number): RateLimiterRes => {
      const c = map.get(key)
      if (c && c.expiresAt > Date.now()) {
        c.value += change
        // A counter given back to nothing is no counter: a refused or voided attempt leaves no key.
        if (c.value <= 0) map.delete(key)
        return res(c.value, c.expiresAt - Date.now(), false)
      }
      map.delete(key)
      if (change <= 0) return res(0, 0, true)
      if (!room()) return new RateLimiterRes(0, NO_ROOM_RETRY_MS, NO_ROOM, true)
      map.set(key, { value: change, expiresAt: Date.now() + durationSec * 1000 })
      return res(change, durationSec * 1000, true)
    }
    const keyOf = (key: string) => `${keyPrefix}:${key}`
    return {
      consume(key) {
        const counted = add(keyOf(key), 1)
        return counted.consumedPoints > points ? Promise.reject(counted) : Promise.resolve(counted)
      },
      reward: (key, given = 1) => Promise.resolve(add(keyOf(key), -given)),
      delete: (key) => Promise.resolve(map.delete(keyOf(key))),
    }
  }

  return { size, limiter, close: () => clearInterval(sweeper) }
}

export function openLimiterStore({
  limits,
  redis: target,
  keyPrefix = 'portal:rl',
  memoryMaxKeys = 100_000,
}: RateLimitOptions) {
  const redis = newRedis(target, {
    // Fail fast to memory instead of queueing sign-ins behind a dead Redis.
    enableOfflineQueue: false,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    maxRetriesPerRequest: 1,
  })

  if (redis) {
    // Without an 'error' listener ioredis prints every reconnection failure; one line per outage is enough.
    let degraded = false
    redis.on('error', (err: Error) => {
      if (degraded) return
      degraded = true
      recordRateLimitStore('memory')
      logger.error({ event: 'rate-limit-fallback', err }, 'Redis unreachable: rate limits fall back to per-process memory')
    })
    redis.on('ready', () => {
      recordRateLimitStore('redis')
      if (!degraded) return
      degraded = false
      logger.info({ event: 'rate-limit-recovered' }, 'Redis reachable again: rate limits are shared')
    })
  }

  if (!redis) recordRateLimitStore('memory')
  const memory = memoryCounters(memoryMaxKeys)

  function limiter(name: LimiterName): Limiter {
    const settings = { keyPrefix: `${keyPrefix}:${name}`, points: limits[name], duration: WINDOWS[name] }
    const inMemory = memory.limiter(settings.keyPrefix, settings.points, settings.duration, name.endsWith('PerIp'))
    if (!redis) return inMemory
    const shared = new RateLimiterRedis({ ...settings, storeClient: redis, rejectIfRedisNotReady: true })
    return withFallback(shared, inMemory)
  }

  const limiters = Object.fromEntries(
    (Object.keys(WINDOWS) as LimiterName[]).map((name) => [name, limiter(name)]),
  ) as Record<LimiterName, Limiter>

  return {
    limiters,
    redis,
    memoryKeys: memory.size,
    async close() {
      memory.close()
      if (!redis) return
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}
