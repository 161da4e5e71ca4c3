import { EventEmitter } from 'node:events'
import type { Redis } from 'ioredis'
import { describe, expect, it, vi } from 'vitest'
import { createReadiness } from './readiness'

/** Just what the readiness check uses of an ioredis connection. */
function fakeRedis(status: string, ping: () => Promise<string> = async () => 'PONG') {
  return Object.assign(new EventEmitter(), { status, ping }) as unknown as Redis & EventEmitter & { status: string }
}

const never = () => new Promise<never>(() => undefined)

describe('readiness', () => {
  it('is ok when the identity service answers and no Redis is configured', async () => {
    const readiness = createReadiness({ identity: async () => ({}), redis: () => null })
    expect(await readiness.check()).toEqual({ status: 'ok', checks: { identity: 'ok' } })
  })

  it('names the failing dependency', async () => {
    const redis = fakeRedis('ready')
    const down = createReadiness({ identity: () => Promise.reject(new Error('refused')), redis: () => redis })
    expect(await down.check()).toEqual({ status: 'unavailable', checks: { identity: 'fail', redis: 'ok' } })

    const noPong = fakeRedis('ready', () => Promise.reject(new Error('READONLY')))
    const redisDown = createReadiness({ identity: async () => ({}), redis: () => noPong })
    expect(await redisDown.check()).toEqual({ status: 'unavailable', checks: { identity: 'ok', redis: 'fail' } })
  })

  it('fails a check that does not answer within the time-out', async () => {
    const readiness = createReadiness({ identity: never, redis: () => null, timeoutMs: 100 })
    const started = Date.now()
    expect(await readiness.check()).toEqual({ status: 'unavailable', checks: { identity: 'fail' } })
    expect(Date.now() - started).toBeLessThan(1_000)
  })

  it('waits for a Redis connection that is coming up, and leaves no listener behind', async () => {
    const connecting = fakeRedis('connecting')
    const readiness = createReadiness({ identity: async () => ({}), redis: () => connecting, timeoutMs: 500 })
    const pending = readiness.check()
    setTimeout(() => {
      connecting.status = 'ready'
      connecting.emit('ready')
    }, 50)
    expect(await pending).toEqual({ status: 'ok', checks: { identity: 'ok', redis: 'ok' } })

    const stuck = fakeRedis('reconnecting')
    const stuckReadiness = createReadiness({ identity: async () => ({}), redis: () => stuck, timeoutMs: 50 })
    for (let i = 0; i < 3; i++) expect((await stuckReadiness.check()).checks.redis).toBe('fail')
    expect(stuck.listenerCount('ready') + stuck.listenerCount('end')).toBe(0)
  })

  it('shares one identity call between concurrent probes', async () => {
    const identity = vi.fn(async () => {
      await new Promise((r) => setTimeout(r, 20))
      return {}
    })
    const readiness = createReadiness({ identity, redis: () => null })
    await Promise.all([readiness.check(), readiness.check(), readiness.check()])
    expect(identity).toHaveBeenCalledTimes(1)
    await readiness.check()
    expect(identity).toHaveBeenCalledTimes(2)
  })

  it('is unavailable from the moment shutdown starts, without asking anyone', async () => {
    const identity = vi.fn(async () => ({}))
    const readiness = createReadiness({ identity, redis: () => null })
    expect(readiness.shuttingDown).toBe(false)
    readiness.startShutdown()
    expect(readiness.shuttingDown).toBe(true)
    expect(await readiness.check()).toEqual({ status: 'unavailable', checks: { shutdown: 'fail' } })
    expect(identity).not.toHaveBeenCalled()
  })

  it('reports a shutdown that started while the checks ran', async () => {
    const readiness = createReadiness({
      identity: async () => {
        readiness.startShutdown()
        return {}
      },
      redis: () => null,
    })
    expect(await readiness.check()).toEqual({ status: 'unavailable', checks: { identity: 'ok', shutdown: 'fail' } })
  })
})
