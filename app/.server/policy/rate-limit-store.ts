import { Redis } from 'ioredis'
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible'
import type { Config } from '~/.server/config'
import { logger } from '~/.server/ops/logger'

/**
 * Where the rate-limit counters live: in memory for a single process; with REDIS_URL in Redis,
 * shared by every replica. If Redis becomes unreachable each replica falls back to its own
 * in-memory counters (weaker, but never unlimited) and says so once in the log.
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
} as const

export type LimiterName = keyof typeof WINDOWS

export interface RateLimitOptions {
  /** Points (allowed attempts per window) for each limiter. */
  limits: Config['rateLimits']
  redisUrl?: string | null
  /** Namespace of the keys in Redis. */
  keyPrefix?: string
}

/** One limiter per name, over one Redis connection (or none). */
export interface LimiterStore {
  limiters: Record<LimiterName, RateLimiterAbstract>
  /** The Redis connection, null in memory mode. */
  redis: Redis | null
  close(): Promise<void>
}

export function openLimiterStore({ limits, redisUrl = null, keyPrefix = 'portal:rl' }: RateLimitOptions): LimiterStore {
  const redis = redisUrl
    ? new Redis(redisUrl, {
        // Fail fast to the in-memory insurance instead of queueing sign-ins behind a dead Redis.
        enableOfflineQueue: false,
        connectTimeout: 2_000,
        commandTimeout: 1_000,
        maxRetriesPerRequest: 1,
      })
    : null

  if (redis) {
    // Without an 'error' listener ioredis would print every reconnection failure; one line per outage is enough.
    let degraded = false
    redis.on('error', (err: Error) => {
      if (degraded) return
      degraded = true
      logger.error(
        { event: 'rate-limit-fallback', err },
        'Redis unreachable: rate limits fall back to per-process memory',
      )
    })
    redis.on('ready', () => {
      if (!degraded) return
      degraded = false
      logger.info({ event: 'rate-limit-recovered' }, 'Redis reachable again: rate limits are shared')
    })
  }

  function limiter(name: LimiterName): RateLimiterAbstract {
    const settings = { keyPrefix: `${keyPrefix}:${name}`, points: limits[name], duration: WINDOWS[name] }
    if (!redis) return new RateLimiterMemory(settings)
    return new RateLimiterRedis({
      ...settings,
      storeClient: redis,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(settings),
    })
  }

  const limiters = {
    signInPerEmailIp: limiter('signInPerEmailIp'),
    signInPerIp: limiter('signInPerIp'),
    signInPerEmail: limiter('signInPerEmail'),
    signInPerDevice: limiter('signInPerDevice'),
    resetPerEmail: limiter('resetPerEmail'),
    resetPerIp: limiter('resetPerIp'),
    newPasswordPerIp: limiter('newPasswordPerIp'),
    mfaCodePerPending: limiter('mfaCodePerPending'),
    mfaCodePerIp: limiter('mfaCodePerIp'),
    mfaSmsPerPending: limiter('mfaSmsPerPending'),
    mfaSmsPerIp: limiter('mfaSmsPerIp'),
  } satisfies Record<LimiterName, RateLimiterAbstract>

  return {
    limiters,
    redis,
    async close() {
      if (!redis) return
      // quit() waits for pending replies; when Redis is gone it fails and we just drop the socket.
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}
