import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alice, allowed, fail, limits, makeLimits } from '../support/rate-limits'
import { type TestRedis, startRedis } from '../support/redis'
import { captureLogs, logger, hashEmail } from '~/.server/ops/logger'
import type { RateLimits } from '~/.server/policy/rate-limit'

/** The rate limits counted in a real redis-server: shared by replicas, a fallback when it dies, full. */
describe('with Redis', () => {
  let redis: TestRedis
  let url = ''

  async function ready(rl: RateLimits) {
    if (rl.redis!.status !== 'ready') await once(rl.redis!, 'ready')
    return rl
  }

  beforeAll(async () => {
    redis = await startRedis()
    url = redis.url
  })
  afterAll(() => redis?.stop())

  it('two replicas sharing Redis count together', async () => {
    const prefix = `replicas-${Date.now()}`
    const a = await ready(makeLimits(url, prefix))
    const b = await ready(makeLimits(url, prefix))
    await fail(a, alice)
    await fail(b, alice)
    const success = await a.consumeSignIn(alice)
    if (!success.ok) throw new Error('refused')
    // In flight on a: the last point is held, b refuses.
    expect((await b.consumeSignIn(alice)).ok).toBe(false)
    await success.release('failure')
    expect((await a.consumeSignIn(alice)).ok).toBe(false)
    // The clear email never reaches Redis.
    const stored = await a.redis!.keys(`${prefix}:*`)
    expect(stored.join()).toContain(hashEmail(alice.email))
    expect(stored.join().toLowerCase()).not.toContain('alice@example.com')
  })

  it('concurrent attempts split across two replicas pass only as often as the limit allows', async () => {
    const prefix = `concurrent-${Date.now()}`
    const a = await ready(makeLimits(url, prefix))
    const b = await ready(makeLimits(url, prefix))
    const attempts = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).consumeSignIn(alice)))
    expect(attempts.filter((x) => x.ok)).toHaveLength(limits.signInPerEmailIp)
    // A success on one replica clears the pair for both.
    const [first, ...rest] = attempts.filter((x) => x.ok)
    for (const attempt of rest) await attempt.release('failure')
    await first!.release('success')
    expect(await allowed(b, alice)).toMatchObject({ ok: true })
    // Refused attempts counted nowhere: the per-email counter holds the 2 failures not cleared.
    const count = await a.redis!.get(`${prefix}:signInPerEmail:${hashEmail(alice.email)}`)
    expect(Number(count)).toBe(limits.signInPerEmailIp - 1)
  })

  it('refused and voided attempts leave no key in Redis', async () => {
    const prefix = `minting-${Date.now()}`
    const rl = await ready(makeLimits(url, prefix))
    for (let i = 0; i < 200; i++) await rl.consumeReset({ ...alice, email: `new-${i}@example.com` })
    // Sign-ins the service never judged give their points back, and counters back at zero are deleted.
    for (let i = 0; i < 20; i++) await allowed(rl, { ip: `198.51.100.${i}`, email: `voided-${i}@example.com` })
    // The client's reset counter and one per address it was allowed: nothing for the 196 refused.
    expect(await rl.redis!.keys(`${prefix}:*`)).toHaveLength(1 + limits.resetPerIp)
  })

  it('falls back to memory when Redis dies, logs it once, and never rejects', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    logger.level = 'warn'
    const logs = captureLogs()
    try {
      const rl = await ready(makeLimits(url, `fallback-${Date.now()}`))
      await fail(rl, alice)
      await redis.stop()
      // Counting goes on in memory: the limit still applies, it does not fail open.
      for (let i = 0; i < limits.signInPerEmailIp; i++) await fail(rl, alice)
      expect((await rl.consumeSignIn(alice)).ok).toBe(false)
      expect(await rl.consumeNewPassword(alice)).toMatchObject({ ok: true })
      // A success clears the pair in memory too.
      const bob = { ...alice, email: 'bob@example.com' }
      await fail(rl, bob)
      await fail(rl, bob)
      const success = await rl.consumeSignIn(bob)
      if (!success.ok) throw new Error('refused')
      await success.release('success')
      for (let i = 0; i < limits.signInPerEmailIp; i++) expect(await fail(rl, bob)).toBe(true)
      // Let ioredis fail a few reconnections: still one log line.
      await new Promise((r) => setTimeout(r, 1_500))
      const fallbacks = logs.lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.event === 'rate-limit-fallback')
      expect(fallbacks).toHaveLength(1)
      expect(fallbacks[0]).toMatchObject({ level: 'error' })
      await rl.close()
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
      logs.stop()
      logger.level = 'silent'
    }
  })
})

describe('with Redis set up as deploy/compose.yaml runs it, once it is full', () => {
  let redis: TestRedis
  let url = ''

  /** The Redis arguments of deploy/compose.yaml: what limits need (docs/deploying.md, ADR 027). */
  function composeRedisArgs(): string[] {
    const compose = readFileSync(new URL('../../deploy/compose.yaml', import.meta.url), 'utf8')
    const command = /redis:\n(?:.*\n)*?\s+command: \[(.*)\]/.exec(compose)?.[1] ?? ''
    return [...command.matchAll(/'([^']*)'/g)].map((m) => m[1]!).slice(1)
  }

  beforeAll(async () => {
    redis = await startRedis(composeRedisArgs())
    url = redis.url
  })
  afterAll(() => redis?.stop())

  it('keeps a spent account counter when Redis fills up, and a write it refuses is a refusal', async () => {
    const rl = makeLimits(url, `full-${Date.now()}`)
    if (rl.redis!.status !== 'ready') await once(rl.redis!, 'ready')
    const redis = rl.redis!
    expect(await redis.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction'])
    for (let i = 0; i < limits.signInPerEmail; i++) await fail(rl, { ip: `198.51.100.${i}`, email: alice.email })
    // Room for about 2 MB more, then a flood of keys that live longer than the account's counter.
    const used = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1])
    await redis.config('SET', 'maxmemory', String(used + 2 * 1024 * 1024))
    const filler = 'x'.repeat(4096)
    let refused = 0
    for (let i = 0; i < 2_000 && refused === 0; i++) {
      await redis.set(`flood:${i}`, filler, 'EX', 24 * 3600).catch(() => refused++)
    }
    expect(refused).toBe(1)
    logger.level = 'error'
    const logs = captureLogs()
    try {
      // The account's guesses stay refused: nothing reached a fresh in-memory counter.
      for (let i = 0; i < 10; i++) {
        expect((await rl.consumeSignIn({ ip: `192.0.2.${i}`, email: alice.email })).ok).toBe(false)
      }
      // A write Redis refuses is a refusal for anyone, said once per limiter at error level.
      expect((await rl.consumeSignIn({ ip: '192.0.2.99', email: 'fresh@example.com' })).ok).toBe(false)
      expect(logs.text()).toMatch(/rate-limit-store-full/)
    } finally {
      logs.stop()
      logger.level = 'silent'
    }
  })
})
