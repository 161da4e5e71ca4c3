import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { getFreePort, waitFor } from '../../../dev/ports'
import { captureLogs, logger } from '~/.server/ops/logger'
import { hashEmail } from '~/.server/ops/security-events'
import { type RateLimits, type SignInWho, createRateLimits } from './rate-limit'
import { type Attempt, ipKey } from './rate-limit-attempt'

const limits = {
  signInPerEmailIp: 3,
  signInPerIp: 10,
  signInPerEmail: 5,
  signInPerDevice: 4,
  resetPerEmail: 2,
  resetPerIp: 4,
  newPasswordPerIp: 2,
  mfaCodePerPending: 3,
  mfaCodePerIp: 7,
  mfaSmsPerPending: 2,
  mfaSmsPerIp: 3,
  mfaCodePerAccount: 8,
  mfaSmsPerAccount: 5,
  mfaSmsPerPhone: 4,
  linkPerEmail: 2,
  resetPerDevice: 2,
}

const open: RateLimits[] = []
function make(redisUrl: string | null = null, keyPrefix = 'test', memoryMaxKeys?: number) {
  const limits_ = createRateLimits({ limits, redisUrl, keyPrefix, memoryMaxKeys })
  open.push(limits_)
  return limits_
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()))
})

const alice = { ip: '203.0.113.7', email: 'Alice@Example.com' }

/** A sign-in attempt that ends as a wrong password: its points stay. Returns whether it was let through. */
async function fail(rl: RateLimits, who: SignInWho): Promise<boolean> {
  const attempt = await rl.consumeSignIn(who)
  if (attempt.ok) await attempt.release('failure')
  return attempt.ok
}

/** Whether a sign-in attempt would be let through now, without counting it (released as 'void'). */
async function allowed(rl: RateLimits, who: SignInWho): Promise<Attempt> {
  const attempt = await rl.consumeSignIn(who)
  if (attempt.ok) await attempt.release('void')
  return attempt
}

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
    for (let i = 0; i < limits.signInPerEmailIp; i++) expect(await fail(rl, alice)).toBe(true)
    const refused = await rl.consumeSignIn(alice)
    expect(refused.ok).toBe(false)
    if (!refused.ok) {
      expect(refused.retryAfterSeconds).toBeGreaterThan(0)
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(15 * 60)
    }
    // Same address, another account: still allowed; the address limit is higher.
    expect(await allowed(rl, { ...alice, email: 'bob@example.com' })).toMatchObject({ ok: true })
  })

  it('takes the point before the outcome: concurrent attempts pass only as often as the limit allows', async () => {
    const rl = make()
    const attempts = await Promise.all(Array.from({ length: 50 }, () => rl.consumeSignIn(alice)))
    expect(attempts.filter((a) => a.ok)).toHaveLength(limits.signInPerEmailIp)
    // While they are in flight, nothing more gets through, the right password included.
    expect((await rl.consumeSignIn(alice)).ok).toBe(false)
    await Promise.all(attempts.map((a) => (a.ok ? a.release('failure') : undefined)))
    expect((await rl.consumeSignIn(alice)).ok).toBe(false)
  })

  it('an attempt given back (no verdict) does not count, and is released once', async () => {
    const rl = make()
    for (let i = 0; i < 20; i++) expect(await allowed(rl, alice)).toMatchObject({ ok: true })
    const attempt = await rl.consumeSignIn(alice)
    if (!attempt.ok) throw new Error('refused')
    await attempt.release('void')
    await attempt.release('void')
    // A second release gave nothing more back: exactly the limit's worth of failures fit.
    for (let i = 0; i < limits.signInPerEmailIp; i++) expect(await fail(rl, alice)).toBe(true)
    expect((await rl.consumeSignIn(alice)).ok).toBe(false)
  })

  it('a refused attempt counts nowhere: it does not fill the per-account limit', async () => {
    const rl = make()
    for (let i = 0; i < limits.signInPerEmailIp; i++) await fail(rl, alice)
    for (let i = 0; i < 20; i++) expect((await rl.consumeSignIn(alice)).ok).toBe(false)
    // The per-email count is still 3 of 5: two more failures from elsewhere, then it is full.
    expect(await fail(rl, { ...alice, ip: '198.51.100.1' })).toBe(true)
    expect(await fail(rl, { ...alice, ip: '198.51.100.2' })).toBe(true)
    expect((await rl.consumeSignIn({ ...alice, ip: '198.51.100.3' })).ok).toBe(false)
  })

  it('a success clears the email+address counter only', async () => {
    const rl = make()
    await fail(rl, alice)
    await fail(rl, alice)
    const success = await rl.consumeSignIn(alice)
    if (!success.ok) throw new Error('refused')
    await success.release('success')
    // Cleared: the full limit again from this address.
    for (let i = 0; i < limits.signInPerEmailIp; i++) expect(await fail(rl, alice)).toBe(true)
    expect((await rl.consumeSignIn(alice)).ok).toBe(false)
    // The per-email count across addresses remains (2 + 3 = its cap of 5).
    expect((await rl.consumeSignIn({ ...alice, ip: '198.51.100.3' })).ok).toBe(false)
  })

  it('caps one account attacked from many addresses', async () => {
    const rl = make()
    for (let i = 0; i < limits.signInPerEmail; i++) {
      expect(await fail(rl, { ip: `198.51.100.${i}`, email: 'alice@example.com' })).toBe(true)
    }
    const fresh = await rl.consumeSignIn({ ip: '192.0.2.99', email: ' ALICE@example.com' })
    expect(fresh).toMatchObject({ ok: false })
    if (!fresh.ok) expect(fresh.retryAfterSeconds).toBeGreaterThan(15 * 60)
  })

  it("a browser holding the account's device cookie is limited per device, not per account", async () => {
    const rl = make()
    for (let i = 0; i < limits.signInPerEmail; i++) await fail(rl, { ip: `198.51.100.${i}`, email: alice.email })
    expect((await rl.consumeSignIn({ ip: '192.0.2.99', email: alice.email })).ok).toBe(false)
    const owner = { ip: '192.0.2.99', email: alice.email, device: 'device-1' }
    expect(await allowed(rl, owner)).toMatchObject({ ok: true })
    // Its own limit, across addresses.
    for (let i = 0; i < limits.signInPerDevice; i++) expect(await fail(rl, { ...owner, ip: `192.0.2.${i}` })).toBe(true)
    const refused = await rl.consumeSignIn({ ...owner, ip: '192.0.2.50' })
    expect(refused.ok).toBe(false)
    if (!refused.ok) expect(refused.retryAfterSeconds).toBeLessThanOrEqual(15 * 60)
    expect(await allowed(rl, { ...owner, ip: '192.0.2.50', device: 'device-2' })).toMatchObject({ ok: true })
    // The per-client limits still apply to it.
    for (let i = 0; i < limits.signInPerEmailIp; i++) await fail(rl, { ...alice, device: 'device-3' })
    expect((await rl.consumeSignIn({ ...alice, device: 'device-3' })).ok).toBe(false)
  })

  it('caps one address spraying many accounts', async () => {
    const rl = make()
    for (let i = 0; i < limits.signInPerIp; i++) await fail(rl, { ip: alice.ip, email: `u${i}@example.com` })
    expect((await rl.consumeSignIn({ ip: alice.ip, email: 'new@example.com' })).ok).toBe(false)
  })

  it('limits reset requests per email and per address, and new passwords per address', async () => {
    const rl = make()
    expect(await rl.consumeReset(alice)).toMatchObject({ ok: true })
    expect(await rl.consumeReset(alice)).toMatchObject({ ok: true })
    expect(await rl.consumeReset(alice)).toMatchObject({ ok: false })
    // The refused request counted nowhere: two more addresses fit in the address's 4.
    expect(await rl.consumeReset({ ...alice, email: 'b@example.com' })).toMatchObject({ ok: true })
    expect(await rl.consumeReset({ ...alice, email: 'c@example.com' })).toMatchObject({ ok: true })
    expect(await rl.consumeReset({ ...alice, email: 'd@example.com' })).toMatchObject({ ok: false })
    expect(await rl.consumeNewPassword(alice)).toMatchObject({ ok: true })
    expect(await rl.consumeNewPassword(alice)).toMatchObject({ ok: true })
    expect(await rl.consumeNewPassword(alice)).toMatchObject({ ok: false })
  })

  it('a new password given back (the service failed) does not count', async () => {
    const rl = make()
    for (let i = 0; i < 5; i++) {
      const attempt = await rl.consumeNewPassword(alice)
      if (!attempt.ok) throw new Error('refused')
      await attempt.release('void')
    }
    const attempts = await Promise.all(Array.from({ length: 10 }, () => rl.consumeNewPassword(alice)))
    expect(attempts.filter((a) => a.ok)).toHaveLength(limits.newPasswordPerIp)
  })

  it('20 concurrent second-factor codes for one pending sign-in: only the limit gets through', async () => {
    const rl = make()
    const attempts = await Promise.all(
      Array.from({ length: 20 }, () => rl.consumeMfaCode({ ...alice, pending: 'pending-1', account: 'a@example.com' })),
    )
    expect(attempts.filter((a) => a.ok)).toHaveLength(limits.mfaCodePerPending)
    // Other pending sign-ins from the same client have their own counts, up to the client's limit.
    const other = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        rl.consumeMfaCode({ ...alice, pending: `pending-other-${i}`, account: `other-${i}@example.com` }),
      ),
    )
    expect(other.filter((a) => a.ok)).toHaveLength(limits.mfaCodePerIp - limits.mfaCodePerPending)
  })

  it('a right code forgets its pending sign-in’s count; a code the service never judged gives its point back', async () => {
    const rl = make()
    const who = { ...alice, pending: 'pending-3', account: alice.email }
    for (let i = 0; i < 2; i++) {
      const attempt = await rl.consumeMfaCode(who)
      if (!attempt.ok) throw new Error('refused')
      await attempt.release('failure')
    }
    const voided = await rl.consumeMfaCode(who)
    if (!voided.ok) throw new Error('refused')
    await voided.release('void')
    const right = await rl.consumeMfaCode(who)
    if (!right.ok) throw new Error('refused')
    await right.release('success')
    const after = await Promise.all(Array.from({ length: 5 }, () => rl.consumeMfaCode(who)))
    expect(after.filter((a) => a.ok)).toHaveLength(limits.mfaCodePerPending)
  })

  it('SMS codes sent: per pending sign-in and per client', async () => {
    const rl = make()
    const sends = await Promise.all(
      Array.from({ length: 5 }, () => rl.consumeMfaSms({ ...alice, pending: 'p-a', account: 'a', phone: 'a' })),
    )
    expect(sends.filter((a) => a.ok)).toHaveLength(limits.mfaSmsPerPending)
    expect(await rl.consumeMfaSms({ ...alice, pending: 'p-b', account: 'b', phone: 'b' })).toMatchObject({ ok: true })
    expect(await rl.consumeMfaSms({ ...alice, pending: 'p-c', account: 'c', phone: 'c' })).toMatchObject({ ok: false })
  })

  it('thousands of refused requests for new addresses from one client leave no key behind', async () => {
    const rl = make()
    let passed = 0
    for (let i = 0; i < 3_000; i++) {
      const who = { ...alice, email: `new-${i}@example.com` }
      if ((await rl.consumeReset(who)).ok) passed++
      const signIn = await rl.consumeSignIn(who)
      if (signIn.ok) {
        passed++
        await signIn.release('failure')
      }
    }
    // Only the client's allowance got through...
    expect(passed).toBe(limits.resetPerIp + limits.signInPerIp)
    // ...and only what got through holds keys: one per limiter it counted in, plus the client's.
    expect(rl.memoryKeys()).toBeLessThanOrEqual(2 * limits.resetPerIp + 2 * limits.signInPerIp + 2)
  })

  it('the memory store is bounded and never evicts a live per-account counter to make room', async () => {
    const rl = make(null, 'test', 100)
    for (let i = 0; i < limits.signInPerEmail; i++) await fail(rl, { ip: `198.51.100.${i}`, email: alice.email })
    // A flood of accepted attempts: a new client and a new address each time.
    for (let i = 0; i < 2_000; i++) {
      const attempt = await rl.consumeSignIn({ ip: `10.0.${i >> 8}.${i & 255}`, email: `flood-${i}@example.com` })
      if (attempt.ok) await attempt.release('failure')
      expect(rl.memoryKeys()).toBeLessThanOrEqual(100)
    }
    // The account's spent counter survived it.
    expect((await rl.consumeSignIn({ ip: '192.0.2.200', email: alice.email })).ok).toBe(false)
  })

  it('second-factor codes for one account stop at its limit, across clients and pending sign-ins', async () => {
    const rl = make()
    let passed = 0
    for (let ip = 0; ip < 5; ip++) {
      for (let p = 0; p < 3; p++) {
        for (let code = 0; code < 2; code++) {
          const who = { ip: `198.51.100.${ip}`, pending: `pending-${ip}-${p}`, account: alice.email }
          const attempt = await rl.consumeMfaCode(who)
          if (!attempt.ok) continue
          passed++
          await attempt.release('failure')
        }
      }
    }
    expect(passed).toBe(limits.mfaCodePerAccount)
    // Another account is not held by it.
    expect(await rl.consumeMfaCode({ ip: '192.0.2.1', pending: 'x', account: 'bob@example.com' })).toMatchObject({
      ok: true,
    })
  })

  it('SMS sends stop at the account limit and at the phone limit, across clients and pending sign-ins', async () => {
    const rl = make()
    const sends = async (n: number, who: (i: number) => { account: string; phone: string }) => {
      let passed = 0
      for (let i = 0; i < n; i++) {
        const attempt = await rl.consumeMfaSms({
          ip: `198.51.100.${i % 5}`,
          pending: `sms-${Math.random()}`,
          ...who(i),
        })
        if (attempt.ok) passed++
      }
      return passed
    }
    // One account, two phones: the account's limit.
    expect(await sends(20, (i) => ({ account: alice.email, phone: `phone-${i % 2}` }))).toBe(limits.mfaSmsPerAccount)
    // One phone, several accounts: the phone's limit.
    expect(await sends(20, (i) => ({ account: `user-${i}@example.com`, phone: 'shared-phone' }))).toBe(
      limits.mfaSmsPerPhone,
    )
  })

  it('sign-in links and resets count apart per address; the device cookie holder has its own reset budget', async () => {
    const rl = make()
    const strangers = (i: number) => ({ ip: `198.51.100.${i}`, email: alice.email })
    for (let i = 0; i < 5; i++) await rl.consumeEmailLink(strangers(i))
    expect(await rl.consumeEmailLink(strangers(9))).toMatchObject({ ok: false })
    expect(await rl.consumeReset(strangers(10))).toMatchObject({ ok: true })
    for (let i = 0; i < 5; i++) await rl.consumeReset(strangers(20 + i))
    expect(await rl.consumeReset(strangers(30))).toMatchObject({ ok: false })
    const owner = { ip: '192.0.2.7', email: alice.email, device: 'device-1' }
    for (let i = 0; i < limits.resetPerDevice; i++) expect(await rl.consumeReset(owner)).toMatchObject({ ok: true })
    expect(await rl.consumeReset(owner)).toMatchObject({ ok: false })
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
    const a = await ready(make(url, prefix))
    const b = await ready(make(url, prefix))
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

  it('falls back to memory when Redis dies, logs it once, and never rejects', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    logger.level = 'warn'
    const logs = captureLogs()
    try {
      const rl = await ready(make(url, `fallback-${Date.now()}`))
      await fail(rl, alice)
      await stopRedis()
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
  let redisServer: ChildProcess | undefined
  let url = ''

  /** The Redis arguments of deploy/compose.yaml: what limits need (README, ADR 027). */
  function composeRedisArgs(): string[] {
    const compose = readFileSync(new URL('../../../deploy/compose.yaml', import.meta.url), 'utf8')
    const command = /redis:\n(?:.*\n)*?\s+command: \[(.*)\]/.exec(compose)?.[1] ?? ''
    return [...command.matchAll(/'([^']*)'/g)].map((m) => m[1]!).slice(1)
  }

  beforeAll(async () => {
    const port = await getFreePort()
    redisServer = spawn(
      '/usr/bin/redis-server',
      [...composeRedisArgs(), '--port', String(port), '--bind', '127.0.0.1'],
      {
        stdio: 'ignore',
      },
    )
    url = `redis://127.0.0.1:${port}`
    const probe = createRateLimits({ limits, redisUrl: url })
    await waitFor('redis-server', async () => (await probe.redis!.ping().catch(() => '')) === 'PONG', 10_000)
    await probe.close()
  })

  afterAll(async () => {
    if (!redisServer || redisServer.exitCode !== null || redisServer.signalCode !== null) return
    const exited = once(redisServer, 'exit')
    redisServer.kill('SIGKILL')
    await exited
  })

  it('keeps a spent account counter when Redis fills up, and a write it refuses is a refusal', async () => {
    const rl = make(url, `full-${Date.now()}`)
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
