import { describe, expect, it } from 'vitest'
import { alice, limits, makeLimits } from '../../../tests/support/rate-limits'

/** The sign-up's limits (ADR 066): its own per client, the reset's per address or device. */
describe('sign-ups', () => {
  it('count per client on a count of their own, whatever the address', async () => {
    const rl = makeLimits()
    const attempts = await Promise.all(
      Array.from({ length: 10 }, (_, i) => rl.consumeSignUp({ ip: alice.ip, email: `new-${i}@example.com` })),
    )
    expect(attempts.filter((a) => a.ok)).toHaveLength(limits.signUpPerIp)
    // The same client's resets are another count.
    expect(await rl.consumeReset({ ip: alice.ip, email: 'other@example.com' })).toMatchObject({ ok: true })
  })

  it("share an address's reset budget: sign-ups and resets for it stop together", async () => {
    const rl = makeLimits()
    expect(await rl.consumeSignUp({ ip: '198.51.100.1', email: alice.email })).toMatchObject({ ok: true })
    expect(await rl.consumeReset({ ip: '198.51.100.2', email: alice.email })).toMatchObject({ ok: true })
    expect(limits.resetPerEmail).toBe(2)
    expect(await rl.consumeSignUp({ ip: '198.51.100.3', email: alice.email })).toMatchObject({ ok: false })
    expect(await rl.consumeReset({ ip: '198.51.100.4', email: alice.email })).toMatchObject({ ok: false })
    // A browser holding the account's device cookie keeps a budget of its own.
    const owner = { ip: '192.0.2.7', email: alice.email, device: 'device-1' }
    expect(await rl.consumeSignUp(owner)).toMatchObject({ ok: true })
  })

  it('20 concurrent sign-ups for one address: only the per-address limit gets through', async () => {
    const rl = makeLimits()
    const attempts = await Promise.all(
      Array.from({ length: 20 }, (_, i) => rl.consumeSignUp({ ip: `198.51.100.${i}`, email: alice.email })),
    )
    expect(attempts.filter((a) => a.ok)).toHaveLength(limits.resetPerEmail)
  })
})
