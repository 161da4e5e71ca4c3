import { randomBytes } from 'node:crypto'
import { getConfig } from '~/.server/config'
import { safeEqual, sign, signedBy } from '~/.server/cookie-format'
import { COOKIES, cookieName, getCookie, setCookie } from '~/.server/cookies'
import { signingKeys } from '~/.server/keys'
import { openLimiterStore, type LimiterStore, type RateLimitOptions } from './rate-limit-store'
import { hashEmail } from '~/.server/ops/logger'
import { attempts, keys, type Attempt, type Entry, type Who } from './rate-limit-attempt'

/** The flows reach the limits through this module only, the device cookie included. */

export type SignInWho = Who & { email: string; device?: string | null }

export type MfaWho = Who & { pending: string; account: string }

// The client's point is taken first: a client over its limit never
// reaches, nor creates, a per-account counter (see ADR 027).
export interface RateLimits {
  consumeSignIn(who: SignInWho): Promise<Attempt>
  consumeReset(who: SignInWho): Promise<Attempt>
  consumeEmailLink(who: Who & { email: string }): Promise<Attempt>
  consumeNewPassword(who: Who): Promise<Attempt>
  consumeMfaCode(who: MfaWho): Promise<Attempt>
  consumeMfaSms(who: MfaWho & { phone: string }): Promise<Attempt>
  consumeEnrolStart(who: Who & { account: string }): Promise<Attempt>
  consumeEnrolSms(who: MfaWho & { phone: string }): Promise<Attempt>
  consumeEmailChange(who: Who & { account: string; email: string }): Promise<Attempt>
  consumeLogout(who: Who): Promise<Attempt>
  consumePasskey(who: Who & { credential?: string }): Promise<Attempt>
  spendChallenge(id: string): Promise<boolean>
  consumeSignUp(who: SignInWho): Promise<Attempt>
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
      // Never the client's or the account's.
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

export async function closeRateLimits(): Promise<void> {
  const closing = current
  current = null
  await closing?.close()
}

// The device cookie. A browser holding this signed cookie has its own per-device limit instead of the per-account one, which
// strangers could fill to lock the owner out (see ADR 015). It names the account by a keyed hash, never the email.
export const DEVICE_MAX_AGE = COOKIES.device.maxAge

export function deviceCookieName(): string {
  return cookieName(COOKIES.device)
}

function accountTag(email: string, key: Buffer): string {
  return sign('device', `device-account:${email.trim().toLowerCase()}`, key).slice(0, 22)
}

export function deviceCookie(email: string): string {
  const [key] = signingKeys('device')
  const expiry = Math.floor(Date.now() / 1000) + DEVICE_MAX_AGE
  const body = `${randomBytes(16).toString('base64url')}.${expiry}.${accountTag(email, key)}`
  return setCookie(COOKIES.device, `${body}.${sign('device', `device:${body}`, key)}`)
}

function openDeviceCookie(request: Request): { id: string; expiry: number; account: string; key: Buffer } | null {
  const raw = getCookie(request, COOKIES.device)
  const [id, expiry, account, given, ...rest] = raw?.split('.') ?? []
  if (!raw || !id || !expiry || !account || !given || rest.length > 0) return null
  if (!(Number(expiry) > Date.now() / 1000)) return null
  // The key that signed it also made its account hash.
  const key = signedBy('device', `device:${id}.${expiry}.${account}`, given)
  return key === null ? null : { id, expiry: Number(expiry), account, key }
}

export function deviceIdFor(request: Request, email: string): string | null {
  const device = openDeviceCookie(request)
  return device && safeEqual(device.account, accountTag(email, device.key)) ? device.id : null
}
