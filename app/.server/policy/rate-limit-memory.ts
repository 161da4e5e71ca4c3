import { RateLimiterRes } from 'rate-limiter-flexible'
import { logger } from '~/.server/ops/logger'
import type { Limiter } from './rate-limit-store'

type Counter = { value: number; expiresAt: number }

/** More than any limit, so it is refused. */
export const NO_ROOM = Number.MAX_SAFE_INTEGER
export const NO_ROOM_RETRY_MS = 60_000

// One bounded set for every limiter. When full, expired counters go, then the oldest
// per-client one; a live per-account counter is never dropped, so with no room its
// attempt is refused. RateLimiterMemory has no bound and a timer per key (see ADR 061).
export class MemoryCounters {
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
    // At most one full sweep a second: under a flood the bound costs no O(n) work per request.
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

  limiter(keyPrefix: string, points: number, durationSec: number, perClient: boolean): Limiter {
    const map = perClient ? this.perClient : this.perAccount
    const res = (consumed: number, msBeforeNext: number, first: boolean) =>
      new RateLimiterRes(Math.max(points - consumed, 0), msBeforeNext, consumed, first)
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
