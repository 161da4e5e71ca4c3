import { isIPv4 } from 'node:net'
import { Redis } from 'ioredis'
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import { type Config, getConfig } from './config'
import { logger } from './observability/logger'
import { recordRateLimitHit } from './observability/metrics'
import { hashEmail } from './observability/security-events'
import { singleton } from './singleton'

/**
 * Brute-force and abuse limits for sign-in, password reset and new-password submissions.
 *
 * In memory for a single process; with REDIS_URL the counters are shared by every replica. If
 * Redis becomes unreachable each replica falls back to its own in-memory counters (weaker, but
 * never unlimited) and says so once in the log.
 */

/** Window of each limiter, in seconds. */
export const WINDOWS = {
  /** Guessing one account's password from one address. */
  signInPerEmailIp: 15 * 60,
  /** Password spraying from one address across many accounts. */
  signInPerIp: 15 * 60,
  /** One account attacked from many addresses: a longer window and higher cap (RATE_LIMIT_SIGNIN_PER_EMAIL). */
  signInPerEmail: 60 * 60,
  /** Reset emails to one mailbox (mail bombing). */
  resetPerEmail: 60 * 60,
  resetPerIp: 60 * 60,
  newPasswordPerIp: 15 * 60,
} as const

export type LimiterName = keyof typeof WINDOWS
export type RateLimitResult = { ok: true } | { ok: false; retryAfterSeconds: number }

export interface RateLimitOptions {
  /** Points (allowed attempts per window) for each limiter. */
  limits: Config['rateLimits']
  redisUrl?: string | null
  /** Namespace of the keys in Redis. */
  keyPrefix?: string
}

/** Who is acting: the client address, the address typed (when any), and the request for the log. */
export interface Who {
  ip: string
  email?: string
  reqId?: string
}

export interface RateLimits {
  /** Whether a sign-in may be attempted; does not count as an attempt. */
  checkSignIn(who: Who & { email: string }): Promise<RateLimitResult>
  recordSignInFailure(who: Who & { email: string }): Promise<void>
  /** After a successful sign-in: forgets the failures of this email from this address only. */
  clearSignInFailures(who: Who & { email: string }): Promise<void>
  consumeReset(who: Who & { email: string }): Promise<RateLimitResult>
  consumeNewPassword(who: Who): Promise<RateLimitResult>
  /** The Redis connection, null in memory mode (for readiness checks and tests). */
  readonly redis: Redis | null
  close(): Promise<void>
}


/**
 * One key per client: an IPv4-mapped IPv6 address is its IPv4 address, and an IPv6 address counts
 * as its /64, since one subscriber usually holds a whole /64 and could rotate through it.
 */
export function ipKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (mapped?.[1]) return mapped[1]
  if (isIPv4(ip) || !ip.includes(':')) return ip
  const [head = '', tail = ''] = ip.toLowerCase().split('%')[0]!.split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`
}

const retryAfter = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000))

export function createRateLimits({ limits, redisUrl = null, keyPrefix = 'portal:rl' }: RateLimitOptions): RateLimits {
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
    resetPerEmail: limiter('resetPerEmail'),
    resetPerIp: limiter('resetPerIp'),
    newPasswordPerIp: limiter('newPasswordPerIp'),
  } satisfies Record<LimiterName, RateLimiterAbstract>

  // No address is stored or logged in clear: keys use the same keyed hash as the security log.
  type Keys = { ip: string; email: string; emailIp: string; reqId?: string }
  const keys = ({ ip, email, reqId }: Who): Keys => {
    const emailHash = email === undefined ? '' : hashEmail(email)
    return { ip: ipKey(ip), email: emailHash, emailIp: `${emailHash}:${ipKey(ip)}`, reqId }
  }

  function hit(name: LimiterName, k: Keys, res: RateLimiterRes) {
    recordRateLimitHit(name)
    logger.warn(
      {
        security: true,
        event: 'rate-limit',
        reqId: k.reqId,
        limiter: name,
        ip: k.ip,
        emailHash: k.email || undefined,
        retryAfterSeconds: retryAfter(res),
      },
      `rate limit ${name} reached`,
    )
  }

  function failed(name: LimiterName, err: unknown) {
    logger.error({ event: 'rate-limit-error', limiter: name, err }, 'rate limiter failed, request let through')
  }

  /**
   * Consumes a point from each limiter; refused when any is exhausted. A store error other than a
   * refusal (only possible if the insurance itself failed) is logged at error and lets the request
   * through: locking every user out on a bug is worse, and the identity service throttles too.
   */
  async function consume(entries: [LimiterName, string][], k: Keys): Promise<RateLimitResult> {
    const settled = await Promise.allSettled(entries.map(([name, key]) => limiters[name].consume(key)))
    let wait = 0
    settled.forEach((outcome, i) => {
      const name = entries[i]![0]
      if (outcome.status === 'fulfilled') return
      if (!(outcome.reason instanceof RateLimiterRes)) return failed(name, outcome.reason)
      hit(name, k, outcome.reason)
      wait = Math.max(wait, retryAfter(outcome.reason))
    })
    return wait > 0 ? { ok: false, retryAfterSeconds: wait } : { ok: true }
  }

  const signInEntries = (k: Keys): [LimiterName, string][] => [
    ['signInPerEmailIp', k.emailIp],
    ['signInPerIp', k.ip],
    ['signInPerEmail', k.email],
  ]

  return {
    redis,

    async checkSignIn(who) {
      const k = keys(who)
      let wait = 0
      await Promise.all(
        signInEntries(k).map(async ([name, key]) => {
          const res = await limiters[name].get(key).catch((err: unknown) => void failed(name, err))
          // Expired memory entries linger until their timer fires: a past expiry counts as none.
          if (!res || res.msBeforeNext <= 0 || res.consumedPoints < limits[name]) return
          hit(name, k, res)
          wait = Math.max(wait, retryAfter(res))
        }),
      )
      return wait > 0 ? { ok: false, retryAfterSeconds: wait } : { ok: true }
    },

    async recordSignInFailure(who) {
      const k = keys(who)
      await consume(signInEntries(k), k)
    },

    async clearSignInFailures(who) {
      // Only this pair: a success must not reset what an attacker built up from elsewhere.
      await limiters.signInPerEmailIp.delete(keys(who).emailIp).catch((err: unknown) => failed('signInPerEmailIp', err))
    },

    consumeReset(who) {
      const k = keys(who)
      return consume(
        [
          ['resetPerEmail', k.email],
          ['resetPerIp', k.ip],
        ],
        k,
      )
    },

    consumeNewPassword(who) {
      const k = keys(who)
      return consume([['newPasswordPerIp', k.ip]], k)
    },

    async close() {
      if (!redis) return
      // quit() waits for pending replies; when Redis is gone it fails and we just drop the socket.
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}

/** The process's limiters, configured from the environment on first use. */
const holder = singleton('rate-limits', () => ({ current: null as RateLimits | null }))

export function getRateLimits(): RateLimits {
  const config = getConfig()
  holder.current ??= createRateLimits({ limits: config.rateLimits, redisUrl: config.redisUrl })
  return holder.current
}

export const checkSignIn: RateLimits['checkSignIn'] = (who) => getRateLimits().checkSignIn(who)
export const recordSignInFailure: RateLimits['recordSignInFailure'] = (who) => getRateLimits().recordSignInFailure(who)
export const clearSignInFailures: RateLimits['clearSignInFailures'] = (who) => getRateLimits().clearSignInFailures(who)
export const consumeReset: RateLimits['consumeReset'] = (who) => getRateLimits().consumeReset(who)
export const consumeNewPassword: RateLimits['consumeNewPassword'] = (who) => getRateLimits().consumeNewPassword(who)

/** At shutdown: closes the Redis connection, if any was opened. */
export async function closeRateLimits(): Promise<void> {
  const current = holder.current
  holder.current = null
  await current?.close()
}
