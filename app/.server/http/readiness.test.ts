import { EventEmitter } from 'node:events'
import type { Redis } from 'ioredis'
import { describe, expect, it, vi } from 'vitest'
import { createReadiness, type ReadinessOptions } from './readiness'

/** Just what the readiness check uses of an ioredis connection. */
function fakeRedis(status: string, ping: () => Promise<string> = async () => 'PONG') {
  return Object.assign(new EventEmitter(), { status, ping }) as unknown as Redis & EventEmitter & { status: string }
}

const never = () => new Promise<never>(() => undefined)

/** A started readiness whose probes report to nobody (no global metrics in unit tests). */
function started(options: ReadinessOptions) {
  const readiness = createReadiness({ onProbe: () => undefined, ...options })
  readiness.markStarted()
  return readiness
}

describe('readiness', () => {
  it('is 503 starting until the server listens, then ok', async () => {
    const readiness = createReadiness({ identity: async () => ({}), redis: () => null, onProbe: () => undefined })
    expect(await readiness.check()).toEqual({ status: 'starting', dependencies: { identity: 'unknown' } })
    readiness.markStarted()
    expect(await readiness.check()).toEqual({ status: 'ok', dependencies: { identity: 'up' } })
  })

  it('stays ok while a dependency is down, and says which', async () => {
    const redis = fakeRedis('ready')
    const onProbe = vi.fn()
    const down = started({ identity: () => Promise.reject(new Error('refused')), redis: () => redis, onProbe })
    expect(await down.check()).toEqual({ status: 'ok', dependencies: { identity: 'down', redis: 'up' } })
    expect(onProbe.mock.calls).toEqual([
      ['identity', false],
      ['redis', true],
    ])

    const noPong = fakeRedis('ready', () => Promise.reject(new Error('READONLY')))
    const redisDown = started({ identity: async () => ({}), redis: () => noPong })
    expect(await redisDown.check()).toEqual({ status: 'ok', dependencies: { identity: 'up', redis: 'down' } })
  })

  it('answers within waitMs while a probe hangs; the dependency is down once the probe times out', async () => {
    const readiness = started({ identity: never, redis: () => null, probeTimeoutMs: 300, waitMs: 50 })
    const begun = Date.now()
    expect(await readiness.check()).toEqual({ status: 'ok', dependencies: { identity: 'unknown' } })
    expect(Date.now() - begun).toBeLessThan(1_000)
    await new Promise((r) => setTimeout(r, 400))
    expect(await readiness.check()).toEqual({ status: 'ok', dependencies: { identity: 'down' } })
  })

  it('waits for a Redis connection that is coming up, and leaves no listener behind', async () => {
    const connecting = fakeRedis('connecting')
    const readiness = started({ identity: async () => ({}), redis: () => connecting, probeTimeoutMs: 500 })
    setTimeout(() => {
      connecting.status = 'ready'
      connecting.emit('ready')
    }, 50)
    expect(await readiness.check()).toEqual({ status: 'ok', dependencies: { identity: 'up', redis: 'up' } })

    const stuck = fakeRedis('reconnecting')
    const stuckReadiness = started({ identity: async () => ({}), redis: () => stuck, probeTimeoutMs: 50, cacheMs: 0 })
    for (let i = 0; i < 3; i++) expect((await stuckReadiness.check()).dependencies.redis).toBe('down')
    expect(stuck.listenerCount('ready') + stuck.listenerCount('end')).toBe(0)
  })

  it('probes once for many checks, and again only after cacheMs', async () => {
    const identity = vi.fn(async () => {
      await new Promise((r) => setTimeout(r, 20))
      return {}
    })
    const readiness = started({ identity, redis: () => null, cacheMs: 200 })
    await Promise.all(Array.from({ length: 300 }, () => readiness.check()))
    for (let i = 0; i < 30; i++) await readiness.check()
    expect(identity).toHaveBeenCalledTimes(1)
    await new Promise((r) => setTimeout(r, 250))
    await readiness.check()
    expect(identity).toHaveBeenCalledTimes(2)
  })

  it('is 503 draining from the moment shutdown starts', async () => {
    const identity = vi.fn(async () => ({}))
    const readiness = createReadiness({ identity, redis: () => null, onProbe: () => undefined })
    expect(readiness.shuttingDown).toBe(false)
    readiness.startShutdown()
    readiness.markStarted()
    expect(readiness.shuttingDown).toBe(true)
    expect((await readiness.check()).status).toBe('draining')
  })

  it('reports a shutdown that started while the probe ran', async () => {
    const readiness = started({
      identity: async () => {
        readiness.startShutdown()
        return {}
      },
      redis: () => null,
    })
    expect(await readiness.check()).toEqual({ status: 'draining', dependencies: { identity: 'up' } })
  })
})
