import { randomBytes } from 'node:crypto'
import { isIPv4 } from 'node:net'
import { RateLimiterRes } from 'rate-limiter-flexible'
import { getConfig } from '~/.server/config'
import { safeEqual, sign, signedBy, signingKeys } from '~/.server/keys'
import { COOKIES, getCookie, setCookie } from '~/.server/cookies'
import { hashEmail, logger } from '~/.server/ops/logger'
import { metrics } from '~/.server/ops/metrics'
import { openLimiterStore, type Limiter, type LimiterName, type RateLimitOptions } from './rate-limit-store'

// Every attempt takes its points before it does anything, atomically, so concurrent attempts cannot all pass
// one check (see ADR 015). A verdict against it keeps the points; success or no verdict gives them back.

export type AttemptOutcome = 'failure' | 'success' | 'no-verdict'

/** An attempt never released keeps its points, as a failure does. */
export type Attempt = { ok: true; release(outcome: AttemptOutcome): Promise<void> } | { ok: false; retryAfterSeconds: number }

export interface Who {
  ip: string
  email?: string
  reqId?: string
}

/** An IPv6 address counts as its /64: one subscriber usually holds a whole /64 and could rotate through it. */
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

export type SignInWho = Who & { email: string; device?: string | null }
export type MfaWho = Who & { pending: string; account: string }

const retryAfter = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000))

// No address is stored or logged in clear: keys use the same keyed hash as the security log.
type Keys = { ip: string; email: string; emailIp: string; reqId?: string }
const keys = ({ ip, email, reqId }: Who): Keys => {
  const emailHash = email === undefined ? '' : hashEmail(email)
  return { ip: ipKey(ip), email: emailHash, emailIp: `${emailHash}:${ipKey(ip)}`, reqId }
}

/** A counter an attempt takes; `forget`: a success deletes it instead of giving its point back. */
type Entry = readonly [name: LimiterName, key: string, onSuccess?: 'forget']

function attempts(limiters: Record<LimiterName, Limiter>) {
  function hit(name: LimiterName, k: Keys, res: RateLimiterRes) {
    metrics.rateLimitHits.inc({ limiter: name })
    const fields = { limiter: name, ip: k.ip, emailHash: k.email || undefined, retryAfterSeconds: retryAfter(res) }
    logger.warn({ security: true, event: 'rate-limit', reqId: k.reqId, ...fields }, `rate limit ${name} reached`)
  }

  function failed(name: LimiterName, err: unknown) {
    logger.error({ event: 'rate-limit-error', limiter: name, err }, 'rate limiter failed, request let through')
  }

  /** Not past the window's end: the point is gone with it, and giving it back would open the next window below zero. */
  async function giveBack([name, key]: Entry, windowEnds: number) {
    if (Date.now() >= windowEnds) return
    try {
      const res = await limiters[name].reward(key, 1)
      if (res.consumedPoints <= 0) await limiters[name].delete(key)
    } catch (err) {
      failed(name, err)
    }
  }

  // The per-client limiter goes first, and a refusal gives back what was taken at once, so a client
  // over its limit never fills nor makes a per-account counter (see ADR 027). A store error lets
  // the attempt through: locking everyone out on a bug is worse, and the service throttles too.
  async function take(entries: Entry[], k: Keys): Promise<Attempt> {
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
        const forget = outcome === 'success' ? entries.filter((entry) => entry[2] === 'forget') : []
        await Promise.all([
          ...held.filter((h) => !forget.includes(h.entry)).map((h) => giveBack(h.entry, h.windowEnds)),
          ...forget.map(([name, key]) => limiters[name].delete(key).catch((err: unknown) => failed(name, err))),
        ])
      },
    }
  }

  return take
}

/** The flows' limits. The client's counter comes first: a client over its limit never reaches, nor creates, a per-account counter (see ADR 027). */
export function createRateLimits(options: RateLimitOptions) {
  const { limiters, redis, memoryKeys, close } = openLimiterStore(options)
  const take = attempts(limiters)
  const limit =
    <W extends Who>(counters: (who: W, k: Keys) => Entry[]) =>
    (who: W): Promise<Attempt> => {
      const k = keys(who)
      return take(counters(who, k), k)
    }
  const resetOrDevice = (who: SignInWho, k: Keys): Entry => (who.device ? ['resetPerDevice', who.device] : ['resetPerEmail', k.email])
  const sms = (perNumber: 'mfaSmsPerPhone' | 'enrolSmsPerNumber') =>
    limit((who: MfaWho & { phone: string }, k) => [
      ['mfaSmsPerIp', k.ip],
      ['mfaSmsPerPending', who.pending],
      ['mfaSmsPerAccount', hashEmail(who.account)],
      [perNumber, hashEmail(who.phone)],
    ])

  return {
    redis,
    memoryKeys,
    close,
    // A success clears only this client's counters: not what an attacker built up from elsewhere.
    consumeSignIn: limit((who: SignInWho, k) => [
      ['signInPerIp', k.ip],
      ['signInPerEmailIp', k.emailIp, 'forget'],
      who.device ? ['signInPerDevice', who.device, 'forget'] : ['signInPerEmail', k.email],
    ]),
    consumeReset: limit((who: SignInWho, k) => [['resetPerIp', k.ip], resetOrDevice(who, k)]),
    consumeEmailLink: limit((_: Who & { email: string }, k) => [['resetPerIp', k.ip], ['linkPerEmail', k.email]]),
    consumeNewPassword: limit((_: Who, k) => [['newPasswordPerIp', k.ip]]),
    // A success clears the pending sign-in's counter, never the client's or the account's.
    consumeMfaCode: limit((who: MfaWho, k) => [
      ['mfaCodePerIp', k.ip],
      ['mfaCodePerPending', who.pending, 'forget'],
      ['mfaCodePerAccount', hashEmail(who.account)],
    ]),
    consumeMfaSms: sms('mfaSmsPerPhone'),
    consumeEnrolStart: limit((who: Who & { account: string }, k) => [
      ['enrolPerIp', k.ip],
      ['enrolPerAccount', hashEmail(who.account)],
    ]),
    consumeEnrolSms: sms('enrolSmsPerNumber'),
    consumeEmailChange: limit((who: Who & { account: string; email: string }, k) => [
      ['resetPerIp', k.ip],
      ['resetPerEmail', k.email],
      ['emailChangePerAccount', hashEmail(who.account)],
    ]),
    consumeLogout: limit((_: Who, k) => [['logoutPerIp', k.ip]]),
    consumePasskey: limit((who: Who & { credential?: string }, k) =>
      who.credential
        ? [['signInPerIp', k.ip], ['signInPerEmail', hashEmail(`passkey:${who.credential}`)]]
        : [['passkeyStartPerIp', k.ip]],
    ),
    consumeSignUp: limit((who: SignInWho, k) => [['signUpPerIp', k.ip], resetOrDevice(who, k)]),
    async spendChallenge(id: string) {
      return (await take([['passkeyChallenge', id]], keys({ ip: '' }))).ok
    },
  }
}

export type RateLimits = ReturnType<typeof createRateLimits>

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

export async function closeRateLimits(): Promise<void> {
  const closing = current
  current = null
  await closing?.close()
}

// The device cookie. A browser holding this signed cookie has its own per-device limit instead of the per-account one, which
// strangers could fill to lock the owner out (see ADR 015). It names the account by a keyed hash, never the email.
function accountTag(email: string, key: Buffer): string {
  return sign('device', `device-account:${email.trim().toLowerCase()}`, key).slice(0, 22)
}

export function deviceCookie(email: string): string {
  const [key] = signingKeys('device')
  const expiry = Math.floor(Date.now() / 1000) + COOKIES.device.maxAge
  const body = `${randomBytes(16).toString('base64url')}.${expiry}.${accountTag(email, key)}`
  return setCookie(COOKIES.device, `${body}.${sign('device', `device:${body}`, key)}`)
}

export function deviceIdFor(request: Request, email: string): string | null {
  const raw = getCookie(request, COOKIES.device)
  const [id, expiry, account, given, ...rest] = raw?.split('.') ?? []
  if (!raw || !id || !expiry || !account || !given || rest.length > 0) return null
  if (!(Number(expiry) > Date.now() / 1000)) return null
  // The key that signed it also made its account hash.
  const key = signedBy('device', `device:${id}.${expiry}.${account}`, given)
  return key !== null && safeEqual(account, accountTag(email, key)) ? id : null
}
