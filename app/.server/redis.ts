import { Redis, type RedisOptions } from 'ioredis'
import type { Config } from '~/.server/config'
import { logger } from '~/.server/ops/logger'

/**
 * The process's connection to Redis for sessions (ADR 063): REDIS_URL, or a replicated Redis through
 * Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_MASTER), with REDIS_PASSWORD and REDIS_TLS as managed
 * services require. Null without either. Through a failover ioredis asks the sentinels for the new
 * primary and reconnects; commands wait for it up to `commandTimeout`, then fail (the page answers 503).
 */
export function connectRedis(redis: Config['redis']): Redis | null {
  const common: RedisOptions = {
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    maxRetriesPerRequest: 2,
    // The store's rows are JSON text: no need for ioredis to guess.
    lazyConnect: false,
    ...(redis.password ? { password: redis.password } : {}),
  }
  let client: Redis | null = null
  if (redis.sentinels) {
    client = new Redis({
      ...common,
      sentinels: redis.sentinels,
      name: redis.sentinelMaster ?? 'mymaster',
      ...(redis.password ? { sentinelPassword: redis.password } : {}),
      ...(redis.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
      failoverDetector: true,
      sentinelRetryStrategy: (times) => Math.min(times * 200, 1_000),
      retryStrategy: (times) => Math.min(times * 100, 1_000),
    })
  } else if (redis.url) {
    client = new Redis(redis.url, { ...common, ...(redis.tls ? { tls: {} } : {}), retryStrategy: (times) => Math.min(times * 100, 1_000) })
  }
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
