import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import { logger } from '~/.server/ops/logger'
import { getRateLimits } from '~/.server/policy/rate-limit'

/**
 * Sessions ended in one browser ("Log out" without "of all devices"). A Firebase session cookie
 * stays good at the identity service until it expires: only revoking the account's tokens ends it,
 * and that ends every device. So the portal itself refuses a copy of an ended cookie, until the
 * moment it would have expired anyway: its SHA-256 (never the cookie) is kept in Redis, shared by
 * every replica, when REDIS_URL is set, and in this process's memory always (so this replica still
 * refuses it while Redis is unreachable), at most `memoryMax` of them there, the oldest dropped first.
 */
export interface EndedSessions {
  /** Refuses this cookie from now until `expiresAt` (ms since the epoch). */
  end(cookie: string, expiresAt: number): Promise<void>
  isEnded(cookie: string): Promise<boolean>
}

const PREFIX = 'portal:ended-session:'

export function createEndedSessions(options: { redis: Redis | null; memoryMax?: number }): EndedSessions {
  const memoryMax = options.memoryMax ?? 10_000
  // Oldest first. Sessions have two lifetimes (ADR 037), so an expired entry may wait behind a longer
  // one until the bound drops it; an expired entry refuses nothing (isEnded reads its time).
  const memory = new Map<string, number>()
  const idOf = (cookie: string) => createHash('sha256').update(cookie).digest('base64url')
  const failed = (err: unknown) => logger.warn({ event: 'ended-sessions-redis', err }, 'ended sessions: Redis failed')

  return {
    async end(cookie, expiresAt) {
      const ttl = Math.ceil(expiresAt - Date.now())
      if (ttl <= 0) return
      const id = idOf(cookie)
      memory.delete(id)
      memory.set(id, expiresAt)
      for (const [old, until] of memory) {
        if (memory.size <= memoryMax && until > Date.now()) break
        memory.delete(old)
      }
      await options.redis?.set(PREFIX + id, '1', 'PX', ttl).catch(failed)
    },

    async isEnded(cookie) {
      const id = idOf(cookie)
      const until = memory.get(id)
      if (until !== undefined && until > Date.now()) return true
      if (!options.redis) return false
      // Unreachable Redis: only this replica's memory can tell, as the rate limits do (ADR 027).
      return (await options.redis.exists(PREFIX + id).catch((err: unknown) => (failed(err), 0))) === 1
    },
  }
}

let current: EndedSessions | null = null

/** The process's list, on the rate limits' Redis connection when there is one. */
export function getEndedSessions(): EndedSessions {
  current ??= createEndedSessions({ redis: getRateLimits().redis })
  return current
}
