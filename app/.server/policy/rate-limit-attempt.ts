import { isIPv4 } from 'node:net'
import { RateLimiterRes } from 'rate-limiter-flexible'
import { logger, hashEmail } from '~/.server/ops/logger'
import { recordRateLimitHit } from '~/.server/ops/metrics'
import type { Limiter, LimiterName } from './rate-limit-store'

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

const retryAfter = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000))

// No address is stored or logged in clear: keys use the same keyed hash as the security log.
export type Keys = { ip: string; email: string; emailIp: string; reqId?: string }
export const keys = ({ ip, email, reqId }: Who): Keys => {
  const emailHash = email === undefined ? '' : hashEmail(email)
  return { ip: ipKey(ip), email: emailHash, emailIp: `${emailHash}:${ipKey(ip)}`, reqId }
}

export type Entry = [LimiterName, string]

export function attempts(limiters: Record<LimiterName, Limiter>) {
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

  const same = (a: Entry, b: Entry) => a[0] === b[0] && a[1] === b[1]

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

  return take
}
