import { getConfig } from '~/.server/config'
import { openLimiterStore, type LimiterStore, type RateLimitOptions } from './rate-limit-store'
import { hashEmail } from '~/.server/ops/security-events'
import { attempts, keys, type Attempt, type Entry, type Who } from './rate-limit-attempt'

/**
 * Brute-force and abuse limits for sign-in, password reset, new-password submissions and the
 * second factor: which limiters each attempt counts in (the store: ./rate-limit-store.ts; taking
 * and giving back points: ./rate-limit-attempt.ts). The flows reach the limits through this module
 * only, the device cookie included: it exists for the sign-in limits (./device.ts, ADR 015).
 */

export { deviceCookie, deviceIdFor } from './device'

/** A sign-in: `device` is the id of a device cookie valid for this email (app/.server/policy/device.ts), if any. */
export type SignInWho = Who & { email: string; device?: string | null }

/**
 * A second-factor step: `pending` is its random id; `account` names the account (its address,
 * or what else identifies it) and `phone` the SMS factor; both are hashed before they are keys.
 */
export type MfaWho = Who & { pending: string; account: string }

/**
 * Every attempt takes the client's point first, then the more specific ones (ADR 027): a client
 * over its limit never reaches, nor creates, a per-account counter.
 */
export interface RateLimits {
  /**
   * Takes a sign-in attempt from every sign-in limiter: per client, per email and client, and
   * per email from all clients, or per device for a browser that holds the account's device cookie.
   */
  consumeSignIn(who: SignInWho): Promise<Attempt>
  /** A reset email asked: per client, and per address or, with the account's device cookie, per device. */
  consumeReset(who: SignInWho): Promise<Attempt>
  /** A sign-in link asked: per client (the reset's), and per address on a count of its own. */
  consumeEmailLink(who: Who & { email: string }): Promise<Attempt>
  consumeNewPassword(who: Who): Promise<Attempt>
  /** A second-factor code attempt: per client, per pending sign-in and per account. */
  consumeMfaCode(who: MfaWho): Promise<Attempt>
  /** An SMS code sent: per client, per pending sign-in, per account and per phone. */
  consumeMfaSms(who: MfaWho & { phone: string }): Promise<Attempt>
  /**
   * A second factor started by the signed-in owner (`account`: its uid): per client and per
   * account. Its codes then count in consumeMfaCode, the enrolment session as `pending`.
   */
  consumeEnrolStart(who: Who & { account: string }): Promise<Attempt>
  /**
   * An SMS code sent to a phone being added (ADR 042): per client, per enrolment (`pending`), per
   * account, and per number from every account. Its codes count in consumeMfaCode.
   */
  consumeEnrolSms(who: MfaWho & { phone: string }): Promise<Attempt>
  /**
   * A "confirm your new address" email asked by the signed-in owner (`account`: its uid, `email`:
   * the new address): per client and per new address (the reset's counts), and per account.
   */
  consumeEmailChange(who: Who & { account: string; email: string }): Promise<Attempt>
  /** A logout posted: per client. */
  consumeLogout(who: Who): Promise<Attempt>
  /**
   * A passkey ceremony started (per client, a count of its own), or a sign-in answered with a passkey
   * (`credential`: its id, hashed): per client on sign-in's count, and per credential as sign-in counts per account.
   */
  consumePasskey(who: Who & { credential?: string }): Promise<Attempt>
  /** Spends a passkey challenge (its random id): true the first time within its 5 minutes, false after. */
  spendChallenge(id: string): Promise<boolean>
  /**
   * A sign-up posted: per client on a count of its own, then per address or device on the reset's
   * counts, since each sign-up emails its address once (a verification, or a reset for an owner).
   */
  consumeSignUp(who: SignInWho): Promise<Attempt>
  /** The Redis connection, null in memory mode (for readiness checks and tests). */
  readonly redis: LimiterStore['redis']
  memoryKeys: LimiterStore['memoryKeys']
  close(): Promise<void>
}

export function createRateLimits(options: RateLimitOptions): RateLimits {
  const { limiters, redis, memoryKeys, close } = openLimiterStore(options)
  const take = attempts(limiters)

  return {
    redis,
    memoryKeys,
    close,

    consumeSignIn(who) {
      const k = keys(who)
      const device: Entry | null = who.device ? ['signInPerDevice', who.device] : null
      const emailIp: Entry = ['signInPerEmailIp', k.emailIp]
      return take(
        [['signInPerIp', k.ip], emailIp, device ?? ['signInPerEmail', k.email]],
        k,
        // Only this client's: a success must not reset what an attacker built up from elsewhere.
        device ? [emailIp, device] : [emailIp],
      )
    },

    consumeReset(who) {
      const k = keys(who)
      return take([['resetPerIp', k.ip], who.device ? ['resetPerDevice', who.device] : ['resetPerEmail', k.email]], k)
    },

    consumeEmailLink(who) {
      const k = keys(who)
      return take(
        [
          ['resetPerIp', k.ip],
          ['linkPerEmail', k.email],
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
      // A right code forgets this pending sign-in's count (it is over anyway), never the client's or the account's.
      const pending: Entry = ['mfaCodePerPending', who.pending]
      return take([['mfaCodePerIp', k.ip], pending, ['mfaCodePerAccount', hashEmail(who.account)]], k, [pending])
    },

    consumeMfaSms(who) {
      const k = keys(who)
      return take(
        [
          ['mfaSmsPerIp', k.ip],
          ['mfaSmsPerPending', who.pending],
          ['mfaSmsPerAccount', hashEmail(who.account)],
          ['mfaSmsPerPhone', hashEmail(who.phone)],
        ],
        k,
      )
    },

    consumeEnrolStart(who) {
      const k = keys(who)
      return take(
        [
          ['enrolPerIp', k.ip],
          ['enrolPerAccount', hashEmail(who.account)],
        ],
        k,
      )
    },

    consumeEnrolSms(who) {
      const k = keys(who)
      return take(
        [
          ['mfaSmsPerIp', k.ip],
          ['mfaSmsPerPending', who.pending],
          ['mfaSmsPerAccount', hashEmail(who.account)],
          ['enrolSmsPerNumber', hashEmail(who.phone)],
        ],
        k,
      )
    },

    consumeEmailChange(who) {
      const k = keys(who)
      return take(
        [
          ['resetPerIp', k.ip],
          ['resetPerEmail', k.email],
          ['emailChangePerAccount', hashEmail(who.account)],
        ],
        k,
      )
    },

    consumeLogout(who) {
      const k = keys(who)
      return take([['logoutPerIp', k.ip]], k)
    },

    consumePasskey(who) {
      const k = keys(who)
      if (!who.credential) return take([['passkeyStartPerIp', k.ip]], k)
      return take([['signInPerIp', k.ip], ['signInPerEmail', hashEmail(`passkey:${who.credential}`)]], k)
    },

    async spendChallenge(id) {
      const attempt = await take([['passkeyChallenge', id]], keys({ ip: '' }))
      return attempt.ok
    },

    consumeSignUp(who) {
      const k = keys(who)
      return take([['signUpPerIp', k.ip], who.device ? ['resetPerDevice', who.device] : ['resetPerEmail', k.email]], k)
    },
  }
}

/** The process's limiters, configured from the environment on first use. */
let current: RateLimits | null = null

export function getRateLimits(): RateLimits {
  const config = getConfig()
  current ??= createRateLimits({
    limits: config.rateLimits,
    redis: config.redis,
    memoryMaxKeys: config.rateLimitMemoryMaxKeys,
  })
  return current
}

export const consumeSignIn: RateLimits['consumeSignIn'] = (who) => getRateLimits().consumeSignIn(who)
export const consumeReset: RateLimits['consumeReset'] = (who) => getRateLimits().consumeReset(who)
export const consumeEmailLink: RateLimits['consumeEmailLink'] = (who) => getRateLimits().consumeEmailLink(who)
export const consumeNewPassword: RateLimits['consumeNewPassword'] = (who) => getRateLimits().consumeNewPassword(who)
export const consumeMfaCode: RateLimits['consumeMfaCode'] = (who) => getRateLimits().consumeMfaCode(who)
export const consumeMfaSms: RateLimits['consumeMfaSms'] = (who) => getRateLimits().consumeMfaSms(who)
export const consumeEnrolStart: RateLimits['consumeEnrolStart'] = (who) => getRateLimits().consumeEnrolStart(who)
export const consumeEnrolSms: RateLimits['consumeEnrolSms'] = (who) => getRateLimits().consumeEnrolSms(who)
export const consumeLogout: RateLimits['consumeLogout'] = (who) => getRateLimits().consumeLogout(who)
export const consumeEmailChange: RateLimits['consumeEmailChange'] = (who) => getRateLimits().consumeEmailChange(who)
export const consumePasskey: RateLimits['consumePasskey'] = (who) => getRateLimits().consumePasskey(who)
export const spendChallenge: RateLimits['spendChallenge'] = (id) => getRateLimits().spendChallenge(id)
export const consumeSignUp: RateLimits['consumeSignUp'] = (who) => getRateLimits().consumeSignUp(who)

/** At shutdown: closes the Redis connection, if any was opened. */
export async function closeRateLimits(): Promise<void> {
  const closing = current
  current = null
  await closing?.close()
}
