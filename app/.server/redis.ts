import { Redis, type RedisOptions } from 'ioredis'
import type { Config } from '~/.server/config'
import { logger } from '~/.server/ops/logger'

/** Through a failover ioredis asks the sentinels for the new primary and reconnects. */
export function newRedis(redis: Config['redis'], options: RedisOptions): Redis | null {
  const retryStrategy = (times: number) => Math.min(times * 100, 1_000)
  const auth = redis.password ? { password: redis.password } : {}
  if (redis.sentinels) {
    return new Redis({
      ...options,
      ...auth,
      sentinels: redis.sentinels,
      name: redis.sentinelMaster ?? 'mymaster',
      ...(redis.password ? { sentinelPassword: redis.password } : {}),
      ...(redis.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
      failoverDetector: true,
      sentinelRetryStrategy: (times) => Math.min(times * 200, 1_000),
      retryStrategy,
    })
  }
  if (redis.url) return new Redis(redis.url, { ...options, ...auth, ...(redis.tls ? { tls: {} } : {}), retryStrategy })
  return null
}

/** A command waits through a failover up to its time-out, then fails, and the page answers 503. */
export function connectRedis(redis: Config['redis']): Redis | null {
  const client = newRedis(redis, { connectTimeout: 2_000, commandTimeout: 2_000, maxRetriesPerRequest: 2 })
  if (!client) return null
  // Without an 'error' listener ioredis prints every failed reconnection; one line per outage is enough.
  let down = false
  client.on('error', (err: Error) => {
    if (down) return
    down = true
    logger.error({ event: 'session-store-unreachable', err: err.message }, 'session store: Redis unreachable')
  })
  client.on('ready', () => {
    if (!down) return
    down = false
    logger.info({ event: 'session-store-reachable' }, 'session store: Redis reachable again')
  })
  return client
}
