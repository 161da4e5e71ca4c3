import type { ChainableCommander, Redis } from 'ioredis'
import { logger } from '~/.server/ops/logger'
import type { SessionRecord, SessionStore, StoredSession } from './session-store'

const PREFIX = 'portal:session:'
const recordKey = (key: string) => `${PREFIX}s:${key}`
const accountKey = (uid: string) => `${PREFIX}u:${uid}`

async function run(transaction: ChainableCommander): Promise<void> {
  const results = (await transaction.exec()) ?? []
  const failed = results.find(([error]) => error)
  if (failed) throw failed[0]
}

// With waitForReplica (Sentinel) a new record is acknowledged by a
// replica before sign-in answers, so a failover does not lose it.
export function createRedisSessionStore(redis: Redis, waitForReplica: boolean): SessionStore {
  const live = async (uid: string): Promise<StoredSession[]> => {
    const keys = await redis.zrevrange(accountKey(uid), 0, -1)
    if (keys.length === 0) return []
    const values = await redis.mget(keys.map(recordKey))
    const gone = keys.filter((_, i) => values[i] === null)
    if (gone.length > 0) await redis.zrem(accountKey(uid), ...gone)
    return keys.flatMap((key, i) => {
      const value = values[i]
      return value ? [{ ...(JSON.parse(value) as SessionRecord), key }] : []
    })
  }

  return {
    async add(key, record, maxPerAccount) {
      const ttl = Math.max(1, record.expiresAt - Date.now())
      const set = accountKey(record.uid)
      await run(
        redis
          .multi()
          .set(recordKey(key), JSON.stringify(record), 'PX', ttl)
          .zadd(set, record.createdAt, key)
          .pexpire(set, ttl, 'GT')
          .pexpire(set, ttl, 'NX'),
      )
      const beyond = (await live(record.uid)).slice(maxPerAccount).map((s) => s.key)
      if (beyond.length > 0) {
        await redis.del(...beyond.map(recordKey))
        await redis.zrem(set, ...beyond)
      }
      if (waitForReplica) {
        const acknowledged = await redis.wait(1, 1_000)
        if (acknowledged < 1) logger.warn({ event: 'session-store-unreplicated' }, 'no replica acknowledged a new session within 1 s')
      }
    },
    async get(key) {
      const value = await redis.get(recordKey(key))
      return value ? (JSON.parse(value) as SessionRecord) : null
    },
    async update(key, changes) {
      const value = await redis.get(recordKey(key))
      if (!value) return
      // XX: only while it lives; KEEPTTL: it still ends when the session does.
      await redis.set(recordKey(key), JSON.stringify({ ...(JSON.parse(value) as SessionRecord), ...changes }), 'KEEPTTL', 'XX')
    },
    async remove(key) {
      const value = await redis.get(recordKey(key))
      if (!value) return false
      const { uid } = JSON.parse(value) as SessionRecord
      // Not in a transaction: a full Redis (noeviction) refuses every queued command, even DEL.
      await redis.del(recordKey(key))
      await redis.zrem(accountKey(uid), key)
      return true
    },
    list: live,
    async removeAll(uid) {
      const keys = await redis.zrange(accountKey(uid), 0, -1)
      await redis.del(...keys.map(recordKey), accountKey(uid))
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}
