import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createEndedSessions } from '../../app/.server/auth/ended-sessions'
import { endEverySession, endThisSession } from '../../app/.server/auth/logout'
import { createSession, getSession } from '../../app/.server/auth/session'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { waitFor } from '../../dev/ports'
import { type TestRedis, startRedis } from '../support/redis'

/**
 * "Log out" ends this browser's session only, and a copy of its cookie is refused afterwards;
 * "Log out of all devices" ends every one (app/.server/auth/logout.ts). Real session cookies from
 * firebase-admin against the Auth emulator; the list of ended sessions in memory and in Redis.
 */

const emu = await vi.hoisted(async () => (await import('../support/emulator-env')).pointAtEmulator())
const admin = emulatorAdmin(emu)
const PASSWORD = 'correct-horse-1'

afterEach(() => {
  vi.useRealTimers()
})

/** A browser signed in to this account: a request carrying its own fresh session cookie. */
async function signedIn(email: string): Promise<Request> {
  const res = await fetch(
    `${emu.origin}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=demo-api-key`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD, returnSecureToken: true }),
    },
  )
  const { idToken } = (await res.json()) as { idToken: string }
  const [pair = ''] = (await createSession(idToken, { remember: false })).split(';')
  return new Request('http://localhost:3000/logout', { headers: { Cookie: pair } })
}

const status = async (request: Request) => (await getSession(request)).status

describe('logout', () => {
  it('endThisSession: this browser’s cookie is refused, even copied; the other browsers stay signed in', async () => {
    const email = uniqueEmail('logout')
    await admin.createUser(email, PASSWORD)
    const a = await signedIn(email)
    // Two sign-ins of one account in the same second give the same token, so the same cookie:
    // the browsers must be told apart, as real ones seconds apart are.
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    const b = await signedIn(email)
    const copy = new Request('http://localhost:3000/', { headers: { Cookie: a.headers.get('Cookie')! } })
    expect([await status(a), await status(b)]).toEqual(['signed-in', 'signed-in'])

    await endThisSession(a)
    expect(await status(a)).toBe('invalid')
    expect(await status(copy)).toBe('invalid')
    expect(await status(b)).toBe('signed-in')
    expect(await status(await signedIn(email))).toBe('signed-in')
    // Nothing to end without a session cookie.
    await expect(endThisSession(new Request('http://localhost:3000/logout'))).resolves.toBeUndefined()
  })

  it('a sign-in in the very second this browser logged out gets a session of its own, which works', async () => {
    const email = uniqueEmail('again')
    await admin.createUser(email, PASSWORD)
    // From the start of a second, so that both sign-ins fall in it: their tokens, hence their
    // cookies, would be the same, and the new session refused as the ended one.
    await sleep(1_000 - (Date.now() % 1_000))
    const a = await signedIn(email)
    await endThisSession(a)
    const again = await signedIn(email)
    expect(again.headers.get('Cookie')).not.toBe(a.headers.get('Cookie'))
    expect([await status(a), await status(again)]).toEqual(['invalid', 'signed-in'])
  })

  it('endEverySession: every browser’s session ends', async () => {
    const email = uniqueEmail('everywhere')
    const { localId } = await admin.createUser(email, PASSWORD)
    const [a, b] = [await signedIn(email), await signedIn(email)]
    // Revocation is recorded to the second: a session made in the same second would survive it (ADR 005).
    await sleep(1_100)
    await endEverySession(localId)
    expect([await status(a), await status(b)]).toEqual(['invalid', 'invalid'])
  })
})

describe('the list of ended sessions', () => {
  it('forgets a cookie once it would have expired, and keeps at most memoryMax in memory, the oldest dropped', async () => {
    const list = createEndedSessions({ redis: null, memoryMax: 2 })
    const now = Date.now()
    await list.end('past', now - 1)
    expect(await list.isEnded('past')).toBe(false)

    await list.end('one', now + 60_000)
    await list.end('two', now + 60_000)
    await list.end('three', now + 60_000)
    expect([await list.isEnded('one'), await list.isEnded('two'), await list.isEnded('three')]).toEqual([
      false,
      true,
      true,
    ])
    vi.useFakeTimers({ toFake: ['Date'], now: now + 60_001 })
    expect(await list.isEnded('two')).toBe(false)
  })

  describe('in Redis', () => {
    let redis: TestRedis
    let url: string
    const clients: Redis[] = []
    // As the rate limits connect: fail at once rather than queue behind a dead Redis.
    const connect = () => {
      const client = new Redis(url, { enableOfflineQueue: false, commandTimeout: 1_000, maxRetriesPerRequest: 1 })
      client.on('error', () => undefined)
      clients.push(client)
      return client
    }

    beforeAll(async () => {
      redis = await startRedis()
      url = redis.url
    })

    afterAll(async () => {
      for (const client of clients) client.disconnect()
      await redis?.stop()
    })

    it('is shared by the replicas, holds a hash and not the cookie, and lasts as long as the cookie would', async () => {
      const [one, two, reader] = [connect(), connect(), connect()]
      await waitFor(
        'redis clients',
        async () => one.status === 'ready' && two.status === 'ready' && reader.status === 'ready',
        10_000,
      )
      const [replicaA, replicaB] = [createEndedSessions({ redis: one }), createEndedSessions({ redis: two })]
      const cookie = `session-cookie-${Date.now()}`
      await replicaA.end(cookie, Date.now() + 3_600_000)
      expect(await replicaB.isEnded(cookie)).toBe(true)
      expect(await replicaB.isEnded('another-cookie')).toBe(false)

      const keys = await reader.keys('portal:ended-session:*')
      expect(keys.some((k) => k.includes(cookie))).toBe(false)
      const ttl = await reader.pttl(keys.find((k) => k.startsWith('portal:ended-session:'))!)
      expect(ttl).toBeGreaterThan(3_500_000)
      expect(ttl).toBeLessThanOrEqual(3_600_000)
    })

    it('while Redis is unreachable, the replica that ended a session still refuses it', async () => {
      const [one, two] = [connect(), connect()]
      await waitFor('redis clients', async () => one.status === 'ready' && two.status === 'ready', 10_000)
      const [replicaA, replicaB] = [createEndedSessions({ redis: one }), createEndedSessions({ redis: two })]
      await redis.stop()
      await replicaA.end('ended-while-down', Date.now() + 60_000)
      expect(await replicaA.isEnded('ended-while-down')).toBe(true)
      expect(await replicaB.isEnded('ended-while-down')).toBe(false)
    })
  })
})
