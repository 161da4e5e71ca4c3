import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { SERVER_ENTRY, startPortal, type Portal } from '../../dev/portal'
import { waitFor } from '../../dev/ports'
import { browserAt } from '../support/http-browser'
import { logLines } from '../support/portal'
import { type TestRedis, startRedis } from '../support/redis'

/**
 * A SESSION_SECRET rotation as docs/operations.md describes it (ADR 034), on real processes of the production
 * build sharing one Redis: `before` runs with the old secret alone, `a` and `b` are the two states
 * that meet in the rolling deploy of the switch (`old,new`: old signs; `new,old`: new signs), and
 * `after` runs with the new secret alone. IDENTIFIER_HASH_SECRET is pinned to the old secret from
 * the first step on, which is what the default already derived (the procedure in docs/operations.md).
 */

const OLD = 'rotation-test-old-secret-0123456789abcdef'
const NEW = 'rotation-test-new-secret-fedcba9876543210'
const PASSWORD = 'Rotation-password-2026'
/** Failed sign-ins one address may have from every client together; the rest stay at their defaults. */
const PER_EMAIL = 4

const emu = inject('emulator')
const admin = emulatorAdmin(emu)

const securityLines = (portal: Portal) => logLines(portal).filter((l) => l.security === true)

describe('SESSION_SECRET rotation across replicas', () => {
  let redis: TestRedis | undefined
  const portals: Record<'before' | 'a' | 'b' | 'after', Portal | undefined> = {
    before: undefined,
    a: undefined,
    b: undefined,
    after: undefined,
  }
  let setupError: Error | undefined

  beforeAll(async () => {
    try {
      if (!existsSync(SERVER_ENTRY)) throw new Error(`${SERVER_ENTRY} is missing: run \`npm run build\` first`)
      const { url } = (redis = await startRedis())
      const env = (secrets: string, pinned: boolean) => ({
        FIREBASE_AUTH_EMULATOR_HOST: emu.host,
        FIREBASE_PROJECT_ID: emu.projectId,
        REDIS_URL: url,
        TRUST_PROXY: '1',
        LOG_LEVEL: 'info',
        RATE_LIMIT_SIGNIN_PER_EMAIL: String(PER_EMAIL),
        SESSION_SECRET: secrets,
        ...(pinned ? { IDENTIFIER_HASH_SECRET: OLD } : {}),
      })
      const started = await Promise.allSettled([
        startPortal(env(OLD, false)),
        startPortal(env(`${OLD},${NEW}`, true)),
        startPortal(env(`${NEW},${OLD}`, true)),
        startPortal(env(NEW, true)),
      ])
      ;[portals.before, portals.a, portals.b, portals.after] = started.map((r) =>
        r.status === 'fulfilled' ? r.value : undefined,
      )
      const failed = started.find((r) => r.status === 'rejected')
      if (failed) throw failed.reason
    } catch (error) {
      setupError = error as Error
    }
  })

  afterAll(async () => {
    await Promise.all(Object.values(portals).map((p) => p?.stop()))
    await redis?.stop()
  })

  function running() {
    if (setupError) throw setupError
    return { before: portals.before!, a: portals.a!, b: portals.b!, after: portals.after! }
  }

  it('a CSRF token and a device cookie made by either replica are accepted by the other', async () => {
    const { a, b } = running()
    const email = uniqueEmail('rotation-device')
    await admin.createUser(email, PASSWORD)

    // The form comes from one replica (its token signed there), the post goes to the other.
    const viaB = await (await browserAt(a.url, '198.51.100.31')).load('/', a.url)
    expect((await viaB.signIn(email, PASSWORD, { at: b.url, remember: true })).status).toBe(303)
    const viaA = await (await browserAt(b.url, '198.51.100.32')).load('/', b.url)
    expect((await viaA.signIn(email, PASSWORD, { at: a.url, remember: true })).status).toBe(303)
    for (const client of [viaA, viaB]) {
      expect(client.jar.has('device')).toBe(true)
      for (const name of [...client.jar.keys()]) if (name !== 'device') client.jar.delete(name)
    }

    // Strangers spend the address's failures, one on each replica: a browser without a device cookie is refused…
    for (const [i, portal] of [a, b, a, b].entries()) {
      const stranger = await browserAt(portal.url, `203.0.113.${40 + i}`)
      expect((await stranger.signIn(email, 'Wrong-password-1')).status).toBe(400)
    }
    const other = await browserAt(a.url, '203.0.113.50')
    expect((await other.signIn(email, PASSWORD)).status).toBe(429)
    // …while the device cookie made by B lets its browser in on A, and A's lets its browser in on B.
    await viaB.load('/', a.url)
    expect((await viaB.signIn(email, PASSWORD, { at: a.url })).status).toBe(303)
    await viaA.load('/', b.url)
    expect((await viaA.signIn(email, PASSWORD, { at: b.url })).status).toBe(303)
  })

  it('a sealed flow cookie (the reset code) made by either replica is opened by the other', async () => {
    const { a, b } = running()
    const email = uniqueEmail('rotation-seal')
    await admin.createUser(email, PASSWORD)
    const client = await browserAt(a.url, '198.51.100.33')
    await client.load('/forgot-password', a.url)
    expect((await client.submit('/forgot-password', { email }, { at: b.url })).status).toBe(303)
    const code = (await admin.emailed(email, 'PASSWORD_RESET')).oobCode

    for (const [maker, reader] of [
      [a, b],
      [b, a],
    ] as const) {
      const keep = await fetch(`${maker.url}/new-password?oobCode=${encodeURIComponent(code)}`, {
        redirect: 'manual',
        headers: { Cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      })
      expect(keep.status).toBe(302)
      const sealed = keep.headers
        .getSetCookie()
        .map((c) => c.split(';')[0]!)
        .find((c) => c.startsWith('reset_code='))
      expect(sealed).toBeDefined()
      client.jar.set('reset_code', sealed!.slice('reset_code='.length))
      // The form for this link only when the cookie opens; 400 is the invalid-link answer.
      const page = await fetch(`${reader.url}/new-password`, {
        headers: { Cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; '), 'Accept-Language': 'en' },
      })
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('Please enter a new password')
    }
  })

  it('keeps one per-account counter and one log hash for an address through the whole rotation', async () => {
    const all = running()
    const email = uniqueEmail('rotation-counter')
    await admin.createUser(email, PASSWORD)
    const order = [all.before, all.a, all.b, all.after]
    // One failure on each state of the rotation, each from its own client: only the per-address count adds up.
    for (const [i, portal] of order.entries()) {
      const client = await browserAt(portal.url, `192.0.2.${60 + i}`)
      expect((await client.signIn(email, 'Wrong-password-1')).status).toBe(400)
    }
    for (const [i, portal] of order.entries()) {
      const client = await browserAt(portal.url, `192.0.2.${70 + i}`)
      const res = await client.signIn(email, PASSWORD)
      expect(res.status, `the ${['before', 'a', 'b', 'after'][i]} replica`).toBe(429)
    }

    const hashes = new Set<unknown>()
    await waitFor(
      'four sign-in failures logged',
      async () =>
        order
          .flatMap(securityLines)
          .filter((l) => l.event === 'sign-in-failure' && String(l.ip).startsWith('192.0.2.6')).length === 4,
      10_000,
    )
    for (const portal of order) {
      for (const line of securityLines(portal)) {
        if (line.event === 'sign-in-failure' && String(line.ip).startsWith('192.0.2.6')) hashes.add(line.emailHash)
      }
      expect(portal.output()).not.toContain(email)
    }
    expect(hashes.size).toBe(1)
  })
})
