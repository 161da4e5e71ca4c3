import { describe, expect, it } from 'vitest'
import { alice, allowed, fail, limits, makeLimits } from '../../../tests/support/rate-limits'
import { captureLogs, logger, hashEmail } from '~/.server/ops/logger'
import { ipKey } from './rate-limit'

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
    const rl = makeLimits()
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
    const rl = makeLimits()
    const attempts = await Promise.all(Array.from({ length: 50 }, () => rl.consumeSignIn(alice)))
    expect(attempts.filter((a) => a.ok)).toHaveLength(limits.signInPerEmailIp)
    // While they are in flight, nothing more gets through, the right password included.
    expect((await rl.consumeSignIn(alice)).ok).toBe(false)
    await Promise.all(attempts.map((a) => (a.ok ? a.release('failure') : undefined)))
    expect((await rl.consumeSignIn(alice)).ok).toBe(false)
  })

  it('an attempt given back (no verdict) does not count, and is released once', async () => {
    const rl = makeLimits()
    for (let i = 0; i < 20; i++) expect(await allowed(rl, alice)).toMatchObject({ ok: true })
    const attempt = await rl.consumeSignIn(alice)
    if (!attempt.ok) throw new Error('refused')
    await attempt.release('no-verdict')
    await attempt.release('no-verdict')
    // A second release gave nothing more back: exactly the limit's worth of failures fit.
    for (let i = 0; i < limits.signInPerEmailIp; i++) expect(await fail(rl, alice)).toBe(true)
    expect((await rl.consumeSignIn(alice)).ok).toBe(false)
  })

  it('a refused attempt counts nowhere: it does not fill the per-account limit', async () => {
    const rl = makeLimits()
    for (let i = 0; i < limits.signInPerEmailIp; i++) await fail(rl, alice)
    for (let i = 0; i < 20; i++) expect((await rl.consumeSignIn(alice)).ok).toBe(false)
    // The per-email count is still 3 of 5: two more failures from elsewhere, then it is full.
    expect(await fail(rl, { ...alice, ip: '198.51.100.1' })).toBe(true)
    expect(await fail(rl, { ...alice, ip: '198.51.100.2' })).toBe(true)
    expect((await rl.consumeSignIn({ ...alice, ip: '198.51.100.3' })).ok).toBe(false)
  })

  it('a success clears the email+address counter only', async () => {
    const rl = makeLimits()
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
    const rl = makeLimits()
    for (let i = 0; i < limits.signInPerEmail; i++) {
      expect(await fail(rl, { ip: `198.51.100.${i}`, email: 'alice@example.com' })).toBe(true)
    }
    const fresh = await rl.consumeSignIn({ ip: '192.0.2.99', email: ' ALICE@example.com' })
    expect(fresh).toMatchObject({ ok: false })
    if (!fresh.ok) expect(fresh.retryAfterSeconds).toBeGreaterThan(15 * 60)
  })

  it("a browser holding the account's device cookie is limited per device, not per account", async () => {
    const rl = makeLimits()
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
    const rl = makeLimits()
    for (let i = 0; i < limits.signInPerIp; i++) await fail(rl, { ip: alice.ip, email: `u${i}@example.com` })
    expect((await rl.consumeSignIn({ ip: alice.ip, email: 'new@example.com' })).ok).toBe(false)
  })

  it('limits reset requests per email and per address, and new passwords per address', async () => {
    const rl = makeLimits()
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
    const rl = makeLimits()
    for (let i = 0; i < 5; i++) {
      const attempt = await rl.consumeNewPassword(alice)
      if (!attempt.ok) throw new Error('refused')
      await attempt.release('no-verdict')
    }
    const attempts = await Promise.all(Array.from({ length: 10 }, () => rl.consumeNewPassword(alice)))
    expect(attempts.filter((a) => a.ok)).toHaveLength(limits.newPasswordPerIp)
  })

  it('20 concurrent second-factor codes for one pending sign-in: only the limit gets through', async () => {
    const rl = makeLimits()
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
    const rl = makeLimits()
    const who = { ...alice, pending: 'pending-3', account: alice.email }
    for (let i = 0; i < 2; i++) {
      const attempt = await rl.consumeMfaCode(who)
      if (!attempt.ok) throw new Error('refused')
      await attempt.release('failure')
    }
    const voided = await rl.consumeMfaCode(who)
    if (!voided.ok) throw new Error('refused')
    await voided.release('no-verdict')
    const right = await rl.consumeMfaCode(who)
    if (!right.ok) throw new Error('refused')
    await right.release('success')
    const after = await Promise.all(Array.from({ length: 5 }, () => rl.consumeMfaCode(who)))
    expect(after.filter((a) => a.ok)).toHaveLength(limits.mfaCodePerPending)
  })

  it('SMS codes sent: per pending sign-in and per client', async () => {
    const rl = makeLimits()
    const sends = await Promise.all(
      Array.from({ length: 5 }, () => rl.consumeMfaSms({ ...alice, pending: 'p-a', account: 'a', phone: 'a' })),
    )
    expect(sends.filter((a) => a.ok)).toHaveLength(limits.mfaSmsPerPending)
    expect(await rl.consumeMfaSms({ ...alice, pending: 'p-b', account: 'b', phone: 'b' })).toMatchObject({ ok: true })
    expect(await rl.consumeMfaSms({ ...alice, pending: 'p-c', account: 'c', phone: 'c' })).toMatchObject({ ok: false })
  })

  it('thousands of refused requests for new addresses from one client leave no key behind', async () => {
    const rl = makeLimits()
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
    const rl = makeLimits(null, 'test', 100)
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

  it('makes room by dropping the oldest per-client counter: a flood of new clients blocks neither them nor an account', async () => {
    const rl = makeLimits(null, 'test', 50)
    for (let i = 0; i < 200; i++) {
      expect((await rl.consumeLogout({ ip: `10.1.${i >> 8}.${i & 255}` })).ok).toBe(true)
      expect(rl.memoryKeys()).toBeLessThanOrEqual(50)
    }
    expect((await rl.consumeSignIn({ ip: '192.0.2.7', email: alice.email })).ok).toBe(true)
  })

  it('second-factor codes for one account stop at its limit, across clients and pending sign-ins', async () => {
    const rl = makeLimits()
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
    const rl = makeLimits()
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

  it('second factors started stop at the client limit and at the account limit', async () => {
    const rl = makeLimits()
    const starts = async (n: number, who: (i: number) => { ip: string; account: string }) => {
      let passed = 0
      for (let i = 0; i < n; i++) if ((await rl.consumeEnrolStart(who(i))).ok) passed++
      return passed
    }
    // One account from many clients: the account's limit.
    expect(await starts(10, (i) => ({ ip: `198.51.100.${i}`, account: 'uid-alice' }))).toBe(limits.enrolPerAccount)
    // One client over many accounts: the client's limit.
    expect(await starts(10, (i) => ({ ip: '192.0.2.9', account: `uid-${i}` }))).toBe(limits.enrolPerIp)
  })

  it('"confirm your new address" emails stop at the account limit from any client, to any address', async () => {
    const rl = makeLimits()
    let sent = 0
    for (let i = 0; i < 10; i++) {
      const attempt = await rl.consumeEmailChange({ ip: `198.51.100.${i}`, email: `stranger-${i}@example.com`, account: 'uid-alice' })
      if (attempt.ok) sent++
    }
    expect(sent).toBe(limits.emailChangePerAccount)
    // Another account is not held back by Alice's count.
    expect((await rl.consumeEmailChange({ ip: '198.51.100.1', email: 'x@example.com', account: 'uid-bob' })).ok).toBe(true)
  })

  it('sign-in links and resets count apart per address; the device cookie holder has its own reset budget', async () => {
    const rl = makeLimits()
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
      const rl = makeLimits()
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
