import { getConfig } from '~/.server/config'
import { openLimiterStore, type LimiterStore, type RateLimitOptions } from './rate-limit-store'
import { attempts, keys, type Attempt, type Entry, type Who } from './rate-limit-attempt'

/**
 * Brute-force and abuse limits for sign-in, password reset, new-password submissions and the
 * second factor: which limiters each attempt counts in (the store: ./rate-limit-store.ts; taking
 * and giving back points: ./rate-limit-attempt.ts).
 */

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
  readonly redis: LimiterStore['redis']
  close(): Promise<void>
}

export function createRateLimits(options: RateLimitOptions): RateLimits {
  const { limiters, redis, close } = openLimiterStore(options)
  const take = attempts(limiters)

  return {
    redis,
    close,

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
