import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { getFreePort, waitFor } from '../tests/support/ports'
import { captureLogs, logger } from './observability/logger'
import { hashEmail } from './observability/security-events'
import { type RateLimits, createRateLimits, ipKey } from './rate-limit'

const limits = {
  signInPerEmailIp: 3,
  signInPerIp: 10,
  signInPerEmail: 5,
  resetPerEmail: 2,
  resetPerIp: 4,
  newPasswordPerIp: 2,
}

const open: RateLimits[] = []
function make(redisUrl: string | null = null, keyPrefix = 'test') {
  const limits_ = createRateLimits({ limits, redisUrl, keyPrefix })
  open.push(limits_)
  return limits_
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()))
})

const alice = { ip: '203.0.113.7', email: 'Alice@Example.com' }

describe('keys', () => {
  it('hashes the canonical address, never storing it in clear', () => {
    expect(hashEmail(' Alice@Example.COM ')).toBe(hashEmail('alice@example.com'))
    expect(hashEmail('alice@example.com')).toMatch(/^[\w-]{22}$/)
  })

  it('counts an IPv6 client by its /64 and a mapped IPv4 as IPv4', () => {
    expect(ipKey('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(ipKey('2001:db8:0:1:aaaa::1')).toBe('2001:db8:0:1::/64')
    expect(ipKey('2001:0db8::1')).toBe('2001:db8:0:0::/64')
    expect(ipKey('::1')).toBe('0:0:0:0::/64')
  })
})

describe('in memory', () => {
  it('refuses the attempt after N failures for one email from one address, with a retry delay', async () => {
    const rl = make()
    for (let i = 0; i < limits.signInPerEmailIp; i++) {
      expect(await rl.checkSignIn(alice)).toEqual({ ok: true })
      await rl.recordSignInFailure(alice)
    }
    const refused = await rl.checkSignIn(alice)
    expect(refused.ok).toBe(false)
    if (!refused.ok) {
      expect(refused.retryAfterSeconds).toBeGreaterThan(0)
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(15 * 60)
    }
    // Same address, another account: still allowed; the address limit is higher.
    expect(await rl.checkSignIn({ ...alice, email: 'bob@example.com' })).toEqual({ ok: true })
  })

  it('checking does not count as an attempt', async () => {
    const rl = make()
    for (let i = 0; i < 20; i++) expect(await rl.checkSignIn(alice)).toEqual({ ok: true })
  })

  it('a success clears the email+address counter only', async () => {
    const rl = make()
    for (let i = 0; i < limits.signInPerEmailIp; i++) await rl.recordSignInFailure(alice)
    expect((await rl.checkSignIn(alice)).ok).toBe(false)
    await rl.clearSignInFailures(alice)
    expect(await rl.checkSignIn(alice)).toEqual({ ok: true })
    // The per-email count across addresses remains: 2 more failures reach its cap of 5.
    await rl.recordSignInFailure({ ...alice, ip: '198.51.100.1' })
    await rl.recordSignInFailure({ ...alice, ip: '198.51.100.2' })
    expect((await rl.checkSignIn({ ...alice, ip: '198.51.100.3' })).ok).toBe(false)
  })

  it('caps one account attacked from many addresses', async () => {
    const rl = make()
    for (let i = 0; i < limits.signInPerEmail; i++) {
      const who = { ip: `198.51.100.${i}`, email: 'alice@example.com' }
      expect(await rl.checkSignIn(who)).toEqual({ ok: true })
      await rl.recordSignInFailure(who)
    }
    const fresh = await rl.checkSignIn({ ip: '192.0.2.99', email: ' ALICE@example.com' })
    expect(fresh).toMatchObject({ ok: false })
    if (!fresh.ok) expect(fresh.retryAfterSeconds).toBeGreaterThan(15 * 60)
  })

  it('caps one address spraying many accounts', async () => {
    const rl = make()
    for (let i = 0; i < limits.signInPerIp; i++)
      await rl.recordSignInFailure({ ip: alice.ip, email: `u${i}@example.com` })
    expect((await rl.checkSignIn({ ip: alice.ip, email: 'new@example.com' })).ok).toBe(false)
  })

  it('limits reset requests per email and per address, and new passwords per address', async () => {
    const rl = make()
    expect(await rl.consumeReset(alice)).toEqual({ ok: true })
    expect(await rl.consumeReset(alice)).toEqual({ ok: true })
    expect(await rl.consumeReset(alice)).toMatchObject({ ok: false })
    expect(await rl.consumeReset({ ...alice, email: 'b@example.com' })).toEqual({ ok: true })
    expect(await rl.consumeReset({ ...alice, email: 'c@example.com' })).toMatchObject({ ok: false })
    expect(await rl.consumeNewPassword(alice)).toEqual({ ok: true })
    expect(await rl.consumeNewPassword(alice)).toEqual({ ok: true })
    expect(await rl.consumeNewPassword(alice)).toMatchObject({ ok: false })
  })

  it('logs a hit with the hashed email, never the address', async () => {
    logger.level = 'warn'
    const logs = captureLogs()
    try {
      const rl = make()
      for (let i = 0; i < 3; i++) await rl.consumeReset(alice)
      const line = JSON.parse(logs.lines[0] ?? '{}') as Record<string, unknown>
      expect(line).toMatchObject({
        level: 'warn',
        event: 'rate-limit',
        limiter: 'resetPerEmail',
        emailHash: hashEmail(alice.email),
      })
      expect(logs.text().toLowerCase()).not.toContain('alice@example.com')
    } finally {
      logs.stop()
      logger.level = 'silent'
    }
  })
})

describe('with Redis', () => {
  let redisServer: ChildProcess | undefined
  let url = ''

  async function startRedis() {
    const port = await getFreePort()
    redisServer = spawn(
      '/usr/bin/redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    )
    url = `redis://127.0.0.1:${port}`
    const probe = createRateLimits({ limits, redisUrl: url })
    await waitFor('redis-server', async () => (await probe.redis!.ping().catch(() => '')) === 'PONG', 10_000)
    await probe.close()
  }

  async function stopRedis() {
    // A process killed by a signal has a signalCode and no exitCode.
    if (!redisServer || redisServer.exitCode !== null || redisServer.signalCode !== null) return
    const exited = once(redisServer, 'exit')
    redisServer.kill('SIGKILL')
    await exited
  }

  async function ready(rl: RateLimits) {
    if (rl.redis!.status !== 'ready') await once(rl.redis!, 'ready')
    return rl
  }

  beforeAll(startRedis)
  afterAll(stopRedis)

  it('two replicas sharing Redis count together', async () => {
    const prefix = `replicas-${Date.now()}`
    const a = await ready(make(url, prefix))
    const b = await ready(make(url, prefix))
    await a.recordSignInFailure(alice)
    await b.recordSignInFailure(alice)
    await a.recordSignInFailure(alice)
    expect((await b.checkSignIn(alice)).ok).toBe(false)
    expect((await a.checkSignIn(alice)).ok).toBe(false)
    // The clear email never reaches Redis.
    const stored = await a.redis!.keys(`${prefix}:*`)
    expect(stored.join()).toContain(hashEmail(alice.email))
    expect(stored.join().toLowerCase()).not.toContain('alice@example.com')
    await b.clearSignInFailures(alice)
    expect(await a.checkSignIn(alice)).toEqual({ ok: true })
  })

  it('falls back to memory when Redis dies, logs it once, and never rejects', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    logger.level = 'warn'
    const logs = captureLogs()
    try {
      const rl = await ready(make(url, `fallback-${Date.now()}`))
      await rl.recordSignInFailure(alice)
      await stopRedis()
      // Counting goes on in memory: the limit still applies, it does not fail open.
      for (let i = 0; i < limits.signInPerEmailIp; i++) await rl.recordSignInFailure(alice)
      expect((await rl.checkSignIn(alice)).ok).toBe(false)
      expect(await rl.consumeNewPassword(alice)).toEqual({ ok: true })
      await rl.clearSignInFailures(alice)
      expect(await rl.checkSignIn(alice)).toEqual({ ok: true })
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
