import { type Redis, ReplyError } from 'ioredis'
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'
import type { Config } from '~/.server/config'
import { logger } from '~/.server/ops/logger'
import { recordRateLimitStore } from '~/.server/ops/metrics'
import { newRedis } from '~/.server/redis'

/**
 * Where the rate-limit counters live: in memory for a single process; with REDIS_URL in Redis,
 * shared by every replica. If Redis becomes unreachable each replica falls back to its own
 * in-memory counters (weaker, but never unlimited) and says so once in the log. Memory holds at
 * most RATE_LIMIT_MEMORY_MAX_KEYS counters; Redis must not evict them (ADR 027).
 */

/** Window of each limiter, in seconds. */
export const WINDOWS = {
  /** Guessing one account's password from one address. */
  signInPerEmailIp: 15 * 60,
  /** Password spraying from one address across many accounts. */
  signInPerIp: 15 * 60,
  /** One account attacked from many addresses: a longer window and higher cap (RATE_LIMIT_SIGNIN_PER_EMAIL). */
  signInPerEmail: 60 * 60,
  /** A browser holding the account's device cookie, instead of signInPerEmail (app/.server/policy/device.ts). */
  signInPerDevice: 15 * 60,
  /** Reset emails to one mailbox (mail bombing). */
  resetPerEmail: 60 * 60,
  resetPerIp: 60 * 60,
  newPasswordPerIp: 15 * 60,
  /** Codes tried for one pending second-factor sign-in: as long as it lives (ADR 022). */
  mfaCodePerPending: 10 * 60,
  /** Codes tried from one client, across pending sign-ins. */
  mfaCodePerIp: 15 * 60,
  /** SMS codes sent for one pending sign-in (the first and each 'Resend code'). */
  mfaSmsPerPending: 10 * 60,
  /** SMS codes sent from one client's sign-ins (SMS pumping costs money). */
  mfaSmsPerIp: 60 * 60,
  /** Codes tried for one account, across clients and pending sign-ins. */
  mfaCodePerAccount: 60 * 60,
  /** SMS codes sent for one account, across clients and pending sign-ins. */
  mfaSmsPerAccount: 60 * 60,
  /** SMS codes sent to one phone (the account's enrolled factor). */
  mfaSmsPerPhone: 60 * 60,
  /** Sign-in links to one mailbox: a count apart from resets, so links cannot silence them. */
  linkPerEmail: 60 * 60,
  /** Reset emails asked by a browser holding the account's device cookie, instead of resetPerEmail. */
  resetPerDevice: 60 * 60,
  /** Second factors started by their owner (each a new secret or SMS), from one client. */
  enrolPerIp: 60 * 60,
  /** Second factors started for one account, from all clients. */
  enrolPerAccount: 60 * 60,
  /** SMS codes sent to one number being added as a second factor, from every account (no SMS pumping, ADR 042). */
  enrolSmsPerNumber: 60 * 60,
  /** "Confirm your new address" emails one account sends, from all clients (no mail relay). */
  emailChangePerAccount: 60 * 60,
  /** Logouts posted from one client (each looks a record up in the session store). */
  logoutPerIp: 15 * 60,
  /** Passkey ceremonies started from one client: the sign-in page starts one per view for the browser's autofill. */
  passkeyStartPerIp: 15 * 60,
  /** A passkey challenge answered: once, within its 5 minutes (app/.server/auth/passkey-challenge.ts). */
  passkeyChallenge: 5 * 60,
  /** Sign-ups posted from one client (each may create an account); per address they count as resets. */
  signUpPerIp: 60 * 60,
} as const

/** The limiters counted per client address: the only counters the memory bound may evict. */
const PER_CLIENT: readonly LimiterName[] = [
  'signInPerIp',
  'resetPerIp',
  'newPasswordPerIp',
  'mfaCodePerIp',
  'mfaSmsPerIp',
  'enrolPerIp',
  'logoutPerIp',
  'passkeyStartPerIp',
  'signUpPerIp',
]

export type LimiterName = keyof typeof WINDOWS

export interface RateLimitOptions {
  /** Points (allowed attempts per window) for each limiter. */
  limits: Config['rateLimits']
  /** Where the counters are shared: the settings' Redis (app/.server/redis.ts), or a URL (tests). */
  redis?: Config['redis'] | null
  redisUrl?: string | null
  /** Namespace of the keys in Redis. */
  keyPrefix?: string
  /** Most counters held in memory, all limiters together (RATE_LIMIT_MEMORY_MAX_KEYS). */
  memoryMaxKeys?: number
}

/**
 * What the portal asks of a limiter (rate-limiter-flexible's public methods): take a point, refused
 * past the limit with a RateLimiterRes; give points back; forget a key.
 */
export interface Limiter {
  consume(key: string): Promise<RateLimiterRes>
  reward(key: string, points?: number): Promise<RateLimiterRes>
  delete(key: string): Promise<boolean>
}

/** One limiter per name, over one Redis connection (or none). */
export interface LimiterStore {
  limiters: Record<LimiterName, Limiter>
  /** The Redis connection, null in memory mode. */
  redis: Redis | null
  /** How many counters this process holds in memory (tests watch it stay bounded). */
  memoryKeys(): number
  close(): Promise<void>
}

type Counter = { value: number; expiresAt: number }

/** What a consume gets when no counter can be made: more than any limit, so it is refused. */
const NO_ROOM = Number.MAX_SAFE_INTEGER
/** Retry-After of an attempt refused because the store could not count it. */
const NO_ROOM_RETRY_MS = 60_000

/**
 * Every in-memory counter of the process, in one bounded set shared by all limiters (and by the
 * fallback behind Redis). Counters expire by their window, swept lazily and once a minute (no
 * timer per counter). When full, room is made by dropping expired counters, then the oldest
 * per-client counter; a live per-account counter is never dropped: with no room left, a new one
 * is not made and its attempt is refused (ADR 027). rate-limiter-flexible's RateLimiterMemory
 * has no bound and a timer per key, and no public way to change either (ADR 061).
 */
class MemoryCounters {
  private readonly perClient = new Map<string, Counter>()
  private readonly perAccount = new Map<string, Counter>()
  private lastSweep = 0
  private lastReport = 0
  private readonly sweeper: NodeJS.Timeout

  constructor(private readonly maxKeys: number) {
    this.sweeper = setInterval(() => this.sweep(), 60_000).unref()
  }

  get size() {
    return this.perClient.size + this.perAccount.size
  }

  close() {
    clearInterval(this.sweeper)
  }

  private sweep() {
    const now = (this.lastSweep = Date.now())
    for (const map of [this.perClient, this.perAccount]) {
      for (const [key, c] of map) if (c.expiresAt <= now) map.delete(key)
    }
  }

  private room(): boolean {
    if (this.size < this.maxKeys) return true
    // At most one full sweep a second: under a flood, the bound costs no O(n) work per request.
    if (Date.now() - this.lastSweep > 1_000) this.sweep()
    if (this.size < this.maxKeys) return true
    const oldest = this.perClient.keys().next()
    if (!oldest.done) {
      this.perClient.delete(oldest.value)
      return true
    }
    if (Date.now() - this.lastReport > 60_000) {
      this.lastReport = Date.now()
      logger.error(
        { event: 'rate-limit-memory-full', maxKeys: this.maxKeys },
        'rate-limit memory full of live per-account counters: attempts that need a new one are refused (RATE_LIMIT_MEMORY_MAX_KEYS)',
      )
    }
    return false
  }

  /** A limiter of `points` per `durationSec` over these counters, its keys under `keyPrefix`. */
  limiter(keyPrefix: string, points: number, durationSec: number, perClient: boolean): Limiter {
    const map = perClient ? this.perClient : this.perAccount
    const res = (consumed: number, msBeforeNext: number, first: boolean) =>
      new RateLimiterRes(Math.max(points - consumed, 0), msBeforeNext, consumed, first)
    /** Adds `change` (negative: gives back) to the key's counter, making it if there is none and room. */
    const add = (key: string, change: number): RateLimiterRes => {
      let c = map.get(key)
      if (c && c.expiresAt <= Date.now()) {
        map.delete(key)
        c = undefined
      }
      if (c) {
        c.value += change
        // A counter given back to nothing is no counter: a refused or voided attempt leaves no key.
        if (c.value <= 0) map.delete(key)
        return res(c.value, c.expiresAt - Date.now(), false)
      }
      if (change <= 0) return res(0, 0, true)
      if (!this.room()) return new RateLimiterRes(0, NO_ROOM_RETRY_MS, NO_ROOM, true)
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
}

/**
 * Counts in Redis, shared by every replica. A Redis that cannot be reached (not connected, timed
 * out) sends the call to this process's memory: weaker, but never unlimited. A Redis that answers
 * with an error (OOM under `noeviction` when it is full, a read-only replica) still holds the
 * counters, which the empty memory would reset: a consume is refused, and a give-back or delete
 * that fails keeps the point (ADR 027). rate-limiter-flexible's `insuranceLimiter` would take
 * both kinds of error to memory, hence this wrapper (ADR 061).
 */
class RedisWithFallback implements Limiter {
  private lastReport = 0

  constructor(
    private readonly redis: RateLimiterRedis,
    private readonly memory: Limiter,
  ) {}

  consume(key: string) {
    return this.call((l) => l.consume(key), new RateLimiterRes(0, NO_ROOM_RETRY_MS, NO_ROOM, false))
  }

  reward(key: string, points = 1) {
    return this.call((l) => l.reward(key, points))
  }

  delete(key: string) {
    return this.call((l) => l.delete(key))
  }

  /** `refusal`: what a consume Redis answered with an error becomes. */
  private async call<T>(op: (limiter: Limiter) => Promise<T>, refusal?: RateLimiterRes): Promise<T> {
    try {
      return await op(this.redis)
    } catch (err) {
      if (err instanceof RateLimiterRes) throw err
      if (!(err instanceof ReplyError)) return op(this.memory)
      if (Date.now() - this.lastReport > 60_000) {
        this.lastReport = Date.now()
        logger.error(
          { event: 'rate-limit-store-full', limiter: this.redis.keyPrefix, err },
          'Redis refused a rate-limit write: attempts are refused until it accepts writes (check maxmemory)',
        )
      }
      throw refusal ?? err
    }
  }
}

export function openLimiterStore({
  limits,
  redis: target = null,
  redisUrl = null,
  keyPrefix = 'portal:rl',
  memoryMaxKeys = 100_000,
}: RateLimitOptions): LimiterStore {
  const redis = newRedis(target ?? { url: redisUrl, sentinels: null, sentinelMaster: null, password: null, tls: false }, {
    // Fail fast to the in-memory fallback instead of queueing sign-ins behind a dead Redis.
    enableOfflineQueue: false,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    maxRetriesPerRequest: 1,
  })

  if (redis) {
    // Without an 'error' listener ioredis would print every reconnection failure; one line per outage is enough.
    let degraded = false
    redis.on('error', (err: Error) => {
      if (degraded) return
      degraded = true
      recordRateLimitStore('memory')
      logger.error(
        { event: 'rate-limit-fallback', err },
        'Redis unreachable: rate limits fall back to per-process memory',
      )
    })
    redis.on('ready', () => {
      recordRateLimitStore('redis')
      if (!degraded) return
      degraded = false
      logger.info({ event: 'rate-limit-recovered' }, 'Redis reachable again: rate limits are shared')
    })
  }

  if (!redis) recordRateLimitStore('memory')
  const memory = new MemoryCounters(memoryMaxKeys)

  function limiter(name: LimiterName): Limiter {
    const settings = { keyPrefix: `${keyPrefix}:${name}`, points: limits[name], duration: WINDOWS[name] }
    const inMemory = memory.limiter(settings.keyPrefix, settings.points, settings.duration, PER_CLIENT.includes(name))
    if (!redis) return inMemory
    return new RedisWithFallback(
      new RateLimiterRedis({ ...settings, storeClient: redis, rejectIfRedisNotReady: true }),
      inMemory,
    )
  }

  const limiters = Object.fromEntries(
    (Object.keys(WINDOWS) as LimiterName[]).map((name) => [name, limiter(name)]),
  ) as Record<LimiterName, Limiter>

  return {
    limiters,
    redis,
    memoryKeys: () => memory.size,
    async close() {
      memory.close()
      if (!redis) return
      // quit() waits for pending replies; when Redis is gone it fails and we just drop the socket.
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}
