import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { startPortal, type Portal } from '../../dev/portal'
import { waitFor } from '../../dev/ports'
import { startLoopbackIdentity } from '../support/emulator-relay'
import { browserAt } from '../support/http-browser'
import { type TestRedis, startRedis } from '../support/redis'

/**
 * Password guessing against the real emulator, with the identity service 250 ms away (a loopback
 * proxy that delays every call and counts the password sign-ins per address): concurrent guesses
 * may reach the service only as often as the limits allow, on one replica or on two sharing
 * Redis (ADR 015); strangers cannot lock the owner out of a browser that signed in before.
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Guessing-Pass-2026'
const WRONG = 'Wrong-password-1'
const DELAY_MS = 250
/** RATE_LIMIT_SIGNIN_PER_EMAIL_IP, set explicitly (it is also the default). */
const PER_EMAIL_IP = 5
const SESSION_SECRET = 'guessing-test-session-secret-0123456789abcdef'

/** The identity service, DELAY_MS away; counts accounts:signInWithPassword calls per address. */
async function slowIdentity() {
  const signIns = new Map<string, number>()
  const loopback = await startLoopbackIdentity(emulator.origin, async ({ path, body }) => {
    if (path.endsWith('accounts:signInWithPassword')) {
      const email = String(body.email).toLowerCase()
      signIns.set(email, (signIns.get(email) ?? 0) + 1)
    }
    await new Promise((r) => setTimeout(r, DELAY_MS))
  })
  return { ...loopback, signInsFor: (email: string) => signIns.get(email.toLowerCase()) ?? 0 }
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length

describe('concurrent guesses on one replica, the identity service 250 ms away', () => {
  let identity: Awaited<ReturnType<typeof slowIdentity>>
  let portal: Portal

  beforeAll(async () => {
    identity = await slowIdentity()
    portal = await startPortal({
      FIREBASE_AUTH_EMULATOR_HOST: identity.host,
      FIREBASE_PROJECT_ID: emulator.projectId,
      SESSION_SECRET,
      TRUST_PROXY: '1',
      RATE_LIMIT_SIGNIN_PER_EMAIL_IP: String(PER_EMAIL_IP),
    })
  })

  afterAll(async () => {
    await portal?.stop()
    await identity?.close()
  })

  it('60 concurrent wrong passwords for one account from one client: at most the limit reach the service', async () => {
    const email = uniqueEmail('burst')
    await admin.createUser(email, PASSWORD)
    const attacker = await browserAt(portal.url, '203.0.113.10')
    const statuses = (await Promise.all(Array.from({ length: 60 }, () => attacker.signIn(email, WRONG)))).map(
      (r) => r.status,
    )
    expect(identity.signInsFor(email)).toBeLessThanOrEqual(PER_EMAIL_IP)
    expect(identity.signInsFor(email)).toBeGreaterThan(0)
    expect(count(statuses, 400)).toBe(identity.signInsFor(email))
    expect(count(statuses, 429)).toBe(60 - identity.signInsFor(email))
  })

  it('the right password sent while wrong guesses hold the limit does not sign in, nor after them', async () => {
    const email = uniqueEmail('burst-right')
    await admin.createUser(email, PASSWORD)
    const attacker = await browserAt(portal.url, '203.0.113.11')
    const wrong = Promise.all(Array.from({ length: 99 }, () => attacker.signIn(email, WRONG)))
    // Well inside the 250 ms the wrong guesses spend at the identity service.
    await new Promise((r) => setTimeout(r, 60))
    const right = await attacker.signIn(email, PASSWORD)
    const statuses = (await wrong).map((r) => r.status)
    expect(right.status).toBe(429)
    expect(right.headers.getSetCookie().join()).not.toMatch(/session=/)
    expect(count(statuses, 400)).toBeLessThanOrEqual(PER_EMAIL_IP)
    expect(identity.signInsFor(email)).toBeLessThanOrEqual(PER_EMAIL_IP)
    // The limit stays used once the guesses are answered.
    expect((await attacker.signIn(email, PASSWORD)).status).toBe(429)
  })

  it("strangers' failures do not lock out a browser holding the owner's device cookie", async () => {
    const email = uniqueEmail('owner')
    await admin.createUser(email, PASSWORD)
    const owner = await browserAt(portal.url, '198.51.100.50')
    const first = await owner.signIn(email, PASSWORD, { remember: true })
    expect(first.status).toBe(303)
    const device = first.headers.getSetCookie().find((c) => c.startsWith('device='))
    expect(device).toBeDefined()
    expect(device).toMatch(/; HttpOnly/)
    expect(device).toMatch(/; SameSite=Lax/)
    expect(device).toMatch(/; Path=\//)
    expect(Number(/Max-Age=(\d+)/.exec(device!)?.[1])).toBeGreaterThan(30 * 24 * 3600)
    expect(decodeURIComponent(device!).toLowerCase()).not.toContain(email.split('@')[0]!.toLowerCase())

    // Logging out (which clears site data) keeps the device cookie: it is no session.
    await owner.load('/')
    const out = await owner.submit('/logout', {}, { remember: true })
    expect(out.status).toBe(303)
    expect(owner.jar.has('session')).toBe(false)
    expect(owner.jar.get('device')).toBe(device!.split(';')[0]!.slice('device='.length))

    // 30 wrong passwords from 6 other addresses: the per-account limit (20 per hour) is used up.
    const strangers = await Promise.all(Array.from({ length: 6 }, (_, i) => browserAt(portal.url, `192.0.2.${10 + i}`)))
    const statuses = (
      await Promise.all(strangers.flatMap((s) => Array.from({ length: 5 }, () => s.signIn(email, WRONG))))
    ).map((r) => r.status)
    expect(
      statuses.every((s) => s === 400 || s === 429),
      JSON.stringify(statuses),
    ).toBe(true)

    const fresh = await browserAt(portal.url, '198.51.100.99')
    expect((await fresh.signIn(email, PASSWORD)).status).toBe(429)

    await owner.load('/')
    const back = await owner.signIn(email, PASSWORD)
    expect(back.status).toBe(303)
    expect(back.headers.getSetCookie().some((c) => c.startsWith('session='))).toBe(true)
  })
})

describe('concurrent guesses split across two replicas sharing Redis', () => {
  let identity: Awaited<ReturnType<typeof slowIdentity>>
  let redis: TestRedis | undefined
  let replicas: Portal[] = []

  beforeAll(async () => {
    identity = await slowIdentity()
    redis = await startRedis()
    const env = {
      FIREBASE_AUTH_EMULATOR_HOST: identity.host,
      FIREBASE_PROJECT_ID: emulator.projectId,
      SESSION_SECRET,
      TRUST_PROXY: '1',
      REDIS_URL: redis.url,
      RATE_LIMIT_SIGNIN_PER_EMAIL_IP: String(PER_EMAIL_IP),
    }
    const started = await Promise.allSettled([startPortal(env), startPortal(env)])
    replicas = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
    const failed = started.find((r) => r.status === 'rejected')
    if (failed) throw failed.reason
    // Both replicas must count in Redis, not in their in-memory fallback.
    await waitFor(
      'both replicas ready',
      async () => {
        const all = await Promise.all(replicas.map(async (r) => (await fetch(`${r.url}/readyz`)).json()))
        return all.every((body: { dependencies?: { redis?: string } }) => body.dependencies?.redis === 'up')
      },
      10_000,
    )
  })

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()))
    await redis?.stop()
    await identity?.close()
  })

  it('60 concurrent wrong passwords, alternating replicas: at most the limit reach the service', async () => {
    const [a, b] = replicas as [Portal, Portal]
    const email = uniqueEmail('split')
    await admin.createUser(email, PASSWORD)
    const attacker = await browserAt(a.url, '203.0.113.20')
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => attacker.signIn(email, WRONG, { at: (i % 2 ? b : a).url })),
    )
    const statuses = answers.map((r) => r.status)
    expect(identity.signInsFor(email)).toBeLessThanOrEqual(PER_EMAIL_IP)
    expect(count(statuses, 400)).toBe(identity.signInsFor(email))
    expect(count(statuses, 429)).toBe(60 - identity.signInsFor(email))
    // Both replicas refused some: the counter is shared, not per process.
    expect(answers.filter((r, i) => r.status === 429 && i % 2 === 0).length).toBeGreaterThan(0)
    expect(answers.filter((r, i) => r.status === 429 && i % 2 === 1).length).toBeGreaterThan(0)
  })
})
