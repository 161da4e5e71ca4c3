import { isIPv4 } from 'node:net'
import { Redis } from 'ioredis'
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import { type Config, getConfig } from '~/.server/config'
import { logger } from '~/.server/ops/logger'
import { recordRateLimitHit } from '~/.server/ops/metrics'
import { hashEmail } from '~/.server/ops/security-events'

/**
 * Brute-force and abuse limits for sign-in, password reset and new-password submissions.
 *
 * Every attempt takes its points before it does anything (rate-limiter-flexible's `consume`,
 * atomic in memory and in Redis), so concurrent attempts cannot all pass a check made before any
 * of them is counted (ADR 015). The caller then releases the attempt with its outcome: a verdict
 * against it keeps the points; a success or an attempt the service never judged gives them back.
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

/**
 * How an attempt ended, for its points:
 * - `failure`: judged against it (a wrong password): the points stay;
 * - `success`: the points come back, and this email's failures from this client (and device) are forgotten;
 * - `void`: no verdict (the service failed, timed out or demanded a captcha): the points come back.
 */
export type Outcome = 'failure' | 'success' | 'void'

/**
 * An attempt that took its points, or was refused (and then counts nowhere). An attempt never
 * released keeps its points, as a failure does.
 */
export type Attempt = { ok: true; release(outcome: Outcome): Promise<void> } | { ok: false; retryAfterSeconds: number }

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

/** A sign-in: `device` is the id of a device cookie valid for this email (app/.server/policy/device.ts), if any. */
export type SignInWho = Who & { email: string; device?: string | null }

export interface RateLimits {
  /**
   * Takes a sign-in attempt from every sign-in limiter: per email and client, per client, and
   * per email from all clients, or per device for a browser that holds the account's device cookie.
   */
  consumeSignIn(who: SignInWho): Promise<Attempt>
  consumeReset(who: Who & { email: string }): Promise<Attempt>
  consumeNewPassword(who: Who): Promise<Attempt>
  /** A second-factor code attempt: per pending sign-in (its random id) and per client. */
  consumeMfaCode(who: Who & { pending: string }): Promise<Attempt>
  /** An SMS code sent: per pending sign-in and per client. */
  consumeMfaSms(who: Who & { pending: string }): Promise<Attempt>
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
    signInPerDevice: limiter('signInPerDevice'),
    resetPerEmail: limiter('resetPerEmail'),
    resetPerIp: limiter('resetPerIp'),
    newPasswordPerIp: limiter('newPasswordPerIp'),
    mfaCodePerPending: limiter('mfaCodePerPending'),
    mfaCodePerIp: limiter('mfaCodePerIp'),
    mfaSmsPerPending: limiter('mfaSmsPerPending'),
    mfaSmsPerIp: limiter('mfaSmsPerIp'),
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

  type Entry = [LimiterName, string]
  const same = (a: Entry, b: Entry) => a[0] === b[0] && a[1] === b[1]

  /**
   * Gives a point back, unless the window that held it has ended (the point is gone with it, and
   * a reward would open the next window below zero).
   */
  async function giveBack([name, key]: Entry, windowEnds: number) {
    if (Date.now() >= windowEnds) return
    await limiters[name].reward(key, 1).catch((err: unknown) => failed(name, err))
  }

  /**
   * Takes a point from each limiter in turn, each atomically, the most specific first. Refused
   * when one is exhausted: the points already taken go back at once and the later limiters are
   * not touched, so a refused attempt counts nowhere (an attacker over the per-client limit does
   * not fill the per-account one). A store error other than a refusal (only possible if the
   * insurance itself failed) is logged at error and lets the attempt through: locking every user
   * out on a bug is worse, and the identity service throttles too. `forget` lists the counters a
   * success deletes.
   */
  async function take(entries: Entry[], k: Keys, forget: Entry[] = []): Promise<Attempt> {
    const held: { entry: Entry; windowEnds: number }[] = []
    for (const entry of entries) {
      const [name, key] = entry
      try {
        const res = await limiters[name].consume(key)
        held.push({ entry, windowEnds: Date.now() + res.msBeforeNext })
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) {
          failed(name, err)
          continue
        }
        hit(name, k, err)
        // The refused consume counted too: it goes back with the others.
        held.push({ entry, windowEnds: Date.now() + err.msBeforeNext })
        await Promise.all(held.map((h) => giveBack(h.entry, h.windowEnds)))
        return { ok: false, retryAfterSeconds: retryAfter(err) }
      }
    }
    let released = false
    return {
      ok: true,
      async release(outcome) {
        if (released || outcome === 'failure') return void (released = true)
        released = true
        const cleared = outcome === 'success' ? forget : []
        await Promise.all([
          ...held.filter((h) => !cleared.some((c) => same(c, h.entry))).map((h) => giveBack(h.entry, h.windowEnds)),
          ...cleared.map(([name, key]) =>
            limiters[name].delete(key).then(
              () => undefined,
              (err: unknown) => failed(name, err),
            ),
          ),
        ])
      },
    }
  }

  return {
    redis,

    consumeSignIn(who) {
      const k = keys(who)
      const device: Entry | null = who.device ? ['signInPerDevice', who.device] : null
      const emailIp: Entry = ['signInPerEmailIp', k.emailIp]
      return take(
        [emailIp, ['signInPerIp', k.ip], device ?? ['signInPerEmail', k.email]],
        k,
        // Only this client's: a success must not reset what an attacker built up from elsewhere.
        device ? [emailIp, device] : [emailIp],
      )
    },

    consumeReset(who) {
      const k = keys(who)
      return take(
        [
          ['resetPerEmail', k.email],
          ['resetPerIp', k.ip],
        ],
        k,
      )
    },

    consumeNewPassword(who) {
      const k = keys(who)
      return take([['newPasswordPerIp', k.ip]], k)
    },

    consumeMfaCode(who) {
      const k = keys(who)
      // A right code forgets this pending sign-in's count (it is over anyway), never the client's.
      const pending: Entry = ['mfaCodePerPending', who.pending]
      return take([pending, ['mfaCodePerIp', k.ip]], k, [pending])
    },

    consumeMfaSms(who) {
      const k = keys(who)
      return take(
        [
          ['mfaSmsPerPending', who.pending],
          ['mfaSmsPerIp', k.ip],
        ],
        k,
      )
    },

    async close() {
      if (!redis) return
      // quit() waits for pending replies; when Redis is gone it fails and we just drop the socket.
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}

/** The process's limiters, configured from the environment on first use. */
let current: RateLimits | null = null

export function getRateLimits(): RateLimits {
  const config = getConfig()
  current ??= createRateLimits({ limits: config.rateLimits, redisUrl: config.redisUrl })
  return current
}

export const consumeSignIn: RateLimits['consumeSignIn'] = (who) => getRateLimits().consumeSignIn(who)
export const consumeReset: RateLimits['consumeReset'] = (who) => getRateLimits().consumeReset(who)
export const consumeNewPassword: RateLimits['consumeNewPassword'] = (who) => getRateLimits().consumeNewPassword(who)
export const consumeMfaCode: RateLimits['consumeMfaCode'] = (who) => getRateLimits().consumeMfaCode(who)
export const consumeMfaSms: RateLimits['consumeMfaSms'] = (who) => getRateLimits().consumeMfaSms(who)

/** At shutdown: closes the Redis connection, if any was opened. */
export async function closeRateLimits(): Promise<void> {
  const closing = current
  current = null
  await closing?.close()
}
