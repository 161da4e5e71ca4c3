import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createSqliteSessionStore, type SessionRecord, type SessionStore } from '../../app/.server/auth/session-store'
import { createRedisSessionStore } from '../../app/.server/auth/session-store-redis'
import { revokeSessions } from '../../app/.server/auth/identity-admin'
import { createSession, endThisSession, getSession } from '../../app/.server/auth/session'
import { getSessionStore } from '../../app/.server/auth/session-store'
import { getIdentity } from '../../app/.server/identity'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { getFreePort, waitFor } from '../../dev/ports'
import { browserAt } from '../support/http-browser'
import { startOnEmulator } from '../support/portal'
import { type TestRedis, startRedis } from '../support/redis'
import { intoTheNextSecond } from '../support/next-second'

/**
 * Sessions the server owns (ADR 063): a record per signed-in browser, the cookie only its random id.
 * In this process against the Auth emulator (the store in memory), and the stores themselves: SQLite
 * on disk and Redis, as every replica shares it.
 */

const emu = await vi.hoisted(async () => (await import('../support/emulator-env')).pointAtEmulator())
const admin = emulatorAdmin(emu)
const PASSWORD = 'correct-horse-1'
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/** A browser signed in to this account: a request carrying its own new session cookie. */
async function signedIn(email: string): Promise<Request> {
  const { idToken } = await getIdentity().signInWithPassword(email, PASSWORD)
  const cookie = await createSession(idToken, { method: 'password', secondFactor: null, remember: false }, { clientIp: '192.0.2.1' })
  return withCookie(cookie.split(';')[0]!)
}
const withCookie = (pair: string) => new Request('http://localhost:3000/account', { headers: { Cookie: pair } })
const status = async (request: Request) => (await getSession(request)).status

describe('a session record per browser', () => {
  it('"Log out" ends it: a copy of the cookie, and every other spelling of it, is refused; the other browser stays', async () => {
    const email = uniqueEmail('logout')
    await admin.createUser(email, PASSWORD)
    const [a, b] = [await signedIn(email), await signedIn(email)]
    const cookie = a.headers.get('Cookie')!
    expect([await status(a), await status(b)]).toEqual(['signed-in', 'signed-in'])

    await endThisSession(a)
    expect(await status(withCookie(cookie))).toBe('invalid')
    // The last character changed, in every way base64url allows; and padded, cut, upper-cased.
    const id = cookie.slice('session='.length)
    const respelled = [
      ...[...BASE64URL].map((c) => id.slice(0, -1) + c),
      `${id}=`,
      id.slice(0, -1),
      id.toUpperCase(),
      encodeURIComponent(id).replace(/-/g, '%2D'),
    ]
    const opened = []
    for (const spelling of respelled) if ((await status(withCookie(`session=${spelling}`))) !== 'invalid') opened.push(spelling)
    expect(opened).toEqual([])
    expect(await status(b)).toBe('signed-in')
  })

  it('two sign-ins of one account in the same second are two sessions, each ended on its own', async () => {
    const email = uniqueEmail('same-second')
    await admin.createUser(email, PASSWORD)
    await sleep(1_000 - (Date.now() % 1_000))
    const [a, b] = await Promise.all([signedIn(email), signedIn(email)])
    expect(a.headers.get('Cookie')).not.toBe(b.headers.get('Cookie'))
    await endThisSession(a)
    expect([await status(a), await status(b)]).toEqual(['invalid', 'signed-in'])
    const c = await signedIn(email)
    await endThisSession(b)
    expect([await status(b), await status(c)]).toEqual(['invalid', 'signed-in'])
  })

  it('"Log out of all devices" ends every one: the service revokes them, and each record ends at its next use', async () => {
    const email = uniqueEmail('everywhere')
    const { localId } = await admin.createUser(email, PASSWORD)
    const [a, b] = [await signedIn(email), await signedIn(email)]
    // Revocation is recorded to the second: a session made in the same second would survive it at the service.
    await intoTheNextSecond()
    await revokeSessions(localId)
    expect([await status(a), await status(b)]).toEqual(['invalid', 'invalid'])
    expect(await getSessionStore().list(localId)).toEqual([])
  })

  it('lasts SESSION_MAX_AGE, ending with the browser, or SESSION_REMEMBER_MAX_AGE with "Keep me signed in"', async () => {
    const email = uniqueEmail('lifetimes')
    const { localId } = await admin.createUser(email, PASSWORD)
    const lifetimes: Record<string, number> = {}
    for (const remember of [false, true]) {
      const { idToken } = await getIdentity().signInWithPassword(email, PASSWORD)
      const cookie = await createSession(idToken, { method: 'password', secondFactor: null, remember }, { clientIp: '192.0.2.1' })
      expect(/Max-Age=(\d+)/.exec(cookie)?.[1] ?? null).toBe(remember ? '1209600' : null)
    }
    for (const s of await getSessionStore().list(localId)) lifetimes[String(s.remembered)] = (s.expiresAt - s.createdAt) / 1000
    expect(lifetimes).toEqual({ false: 28_800, true: 1_209_600 })
  })

  it('a cookie of the old format (the service’s own session cookie) opens nothing: signed out once', async () => {
    const email = uniqueEmail('old-format')
    await admin.createUser(email, PASSWORD)
    const { idToken } = await getIdentity().signInWithPassword(email, PASSWORD)
    expect(await status(withCookie(`session=${idToken}`))).toBe('invalid')
  })
})

/** A record as the store keeps it, for `uid`, made `ago` ms before now. */
function record(uid: string, ago = 0): SessionRecord {
  const now = Date.now() - ago
  return {
    uid,
    createdAt: now,
    expiresAt: now + 3_600_000,
    lastSeenAt: now,
    method: 'password',
    secondFactor: null,
    remembered: false,
    device: { browser: 'Firefox 153', os: 'Linux' },
    ip: '192.0.2.1',
    sealed: 'sealed',
  }
}

/** What each store must do, whatever holds it. `size` counts everything the store holds. */
function behavesAsAStore(name: string, open: () => { store: SessionStore; size: () => Promise<number> }) {
  describe(name, () => {
    it('holds a record until it is removed; removing one it does not hold writes nothing, 10,000 times', async () => {
      const { store, size } = open()
      await store.add('owner-key', record('owner'), 20)
      expect(await store.get('owner-key')).toMatchObject({ uid: 'owner', device: { browser: 'Firefox 153' } })
      expect(await store.remove('owner-key')).toBe(true)
      expect(await store.get('owner-key')).toBeNull()
      const before = await size()
      let removed = 0
      for (let i = 0; i < 10_000; i++) if (await store.remove(`junk-${i}-${Math.random()}`)) removed++
      expect(removed).toBe(0)
      expect(await size()).toBe(before)
      expect(await store.get('owner-key')).toBeNull()
    })

    it('lists an account’s live records newest first, ends the oldest beyond the bound, and removes all', async () => {
      const { store } = open()
      const uid = `uid-${Math.random()}`
      for (let i = 0; i < 5; i++) await store.add(`k${i}-${uid}`, record(uid, (5 - i) * 1_000), 3)
      expect((await store.list(uid)).map((s) => s.key)).toEqual([`k4-${uid}`, `k3-${uid}`, `k2-${uid}`])
      expect(await store.get(`k0-${uid}`)).toBeNull()
      await store.update(`k3-${uid}`, { lastSeenAt: 42 })
      expect(await store.get(`k3-${uid}`)).toMatchObject({ lastSeenAt: 42 })
      await store.removeAll(uid)
      expect(await store.list(uid)).toEqual([])
    })

    it('an expired record is gone', async () => {
      const { store } = open()
      const old = { ...record('expired'), expiresAt: Date.now() + 50 }
      await store.add('expiring', old, 20)
      await sleep(120)
      expect(await store.get('expiring')).toBeNull()
      expect(await store.list('expired')).toEqual([])
    })
  })
}

const file = path.join(mkdtempSync(path.join(tmpdir(), 'sessions-')), 'sessions.sqlite')
behavesAsAStore('the SQLite store', () => ({
  store: createSqliteSessionStore(file),
  size: async () => Number(new DatabaseSync(file).prepare('SELECT count(*) AS n FROM sessions').get()!.n),
}))

describe('the SQLite store on disk', () => {
  it('keeps its records, and the end of one, across a restart', async () => {
    const at = path.join(mkdtempSync(path.join(tmpdir(), 'sessions-')), 'nested', 'sessions.sqlite')
    const first = createSqliteSessionStore(at)
    await first.add('kept', record('restart'), 20)
    await first.add('ended', record('restart'), 20)
    await first.remove('ended')
    await first.close()
    const second = createSqliteSessionStore(at)
    expect(await second.get('kept')).toMatchObject({ uid: 'restart' })
    expect(await second.get('ended')).toBeNull()
    await second.close()
  })
})

describe('in Redis', () => {
  let redis: TestRedis
  const clients: Redis[] = []
  const connect = () => {
    const client = new Redis(redis.url, { commandTimeout: 1_000, maxRetriesPerRequest: 1 })
    client.on('error', () => undefined)
    clients.push(client)
    return client
  }
  beforeAll(async () => {
    redis = await startRedis()
  })
  afterAll(async () => {
    for (const client of clients) client.disconnect()
    await redis?.stop()
  })

  behavesAsAStore('the Redis store', () => {
    const client = connect()
    return { store: createRedisSessionStore(client, false), size: () => client.dbsize() }
  })

  it('is shared by the replicas, keyed by the hash it is given, and lasts as long as the session', async () => {
    const [one, two] = [createRedisSessionStore(connect(), false), createRedisSessionStore(connect(), false)]
    await one.add('shared-key', record('shared'), 20)
    expect(await two.get('shared-key')).toMatchObject({ uid: 'shared' })
    const ttl = await connect().pttl('portal:session:s:shared-key')
    expect(ttl).toBeGreaterThan(3_500_000)
    expect(ttl).toBeLessThanOrEqual(3_600_000)
    expect(await two.remove('shared-key')).toBe(true)
    expect(await one.get('shared-key')).toBeNull()
  })

  it('full (maxmemory, noeviction): a new session is refused, the live ones still open and still end', async () => {
    const client = connect()
    const store = createRedisSessionStore(client, false)
    await store.add('before-full', record('full'), 20)
    const used = Number(/used_memory:(\d+)/.exec(await client.info('memory'))![1])
    await client.config('SET', 'maxmemory', String(used + 1024))
    await client.config('SET', 'maxmemory-policy', 'noeviction')
    try {
      // Fill what is left, then a sign-in's record does not fit.
      await client.set('filler', 'x'.repeat(4096)).catch(() => undefined)
      await expect(store.add('after-full', { ...record('full'), sealed: 'y'.repeat(4096) }, 20)).rejects.toThrow(/OOM|EXECABORT/)
      expect(await store.get('after-full')).toBeNull()
      expect(await store.get('before-full')).toMatchObject({ uid: 'full' })
      expect(await store.remove('before-full')).toBe(true)
    } finally {
      await client.config('SET', 'maxmemory', '0')
      await client.del('filler')
    }
  })

  it('unreachable: every call fails, none answers as if the session were there or gone', async () => {
    const store = createRedisSessionStore(connect(), false)
    await store.add('down', record('down'), 20)
    await redis.stop()
    await expect(store.get('down')).rejects.toThrow()
    await expect(store.remove('down')).rejects.toThrow()
    await expect(store.add('down-2', record('down'), 20)).rejects.toThrow()
    await redis.restart()
    await waitFor('the client to reconnect', async () => (await store.get('nothing').then(() => true, () => false)), 10_000)
  })
})

describe('a portal and its store', () => {
  const password = 'Portal-Sessions-2026'

  /** A browser of `portal`'s signed in to `email`, its session cookie kept. */
  async function signedInBrowser(url: string, email: string, ip: string) {
    const client = await browserAt(url, ip)
    expect((await client.signIn(email, password, { remember: true })).status).toBe(303)
    return client
  }
  const accountStatus = async (url: string, cookie: string) =>
    (await fetch(`${url}/account`, { headers: { Cookie: cookie }, redirect: 'manual' })).status

  it('without Redis, restarted: a logout stays in force and a live session stays open', async () => {
    const email = uniqueEmail('restart')
    await admin.createUser(email, password)
    const settings = {
      SESSION_STORE_PATH: path.join(mkdtempSync(path.join(tmpdir(), 'sessions-')), 'sessions.sqlite'),
      PORT: String(await getFreePort()),
      TRUST_PROXY: '1',
    }
    let portal = await startOnEmulator(settings)
    try {
      const [leaving, staying] = [
        await signedInBrowser(portal.url, email, '198.51.100.31'),
        await signedInBrowser(portal.url, email, '198.51.100.32'),
      ]
      const copy = `session=${leaving.jar.get('session')}`
      await leaving.load('/logout')
      expect((await leaving.submit('/logout', {}, { remember: true })).status).toBe(303)
      await portal.stop()
      portal = await startOnEmulator(settings)
      expect(await accountStatus(portal.url, copy)).toBe(302)
      expect(await accountStatus(portal.url, `session=${staying.jar.get('session')}`)).toBe(200)
    } finally {
      await portal.stop()
    }
  })

  it('with Redis unreachable, nobody is signed in or out by mistake: 503s, and the session opens once it is back', async () => {
    const redis = await startRedis()
    const portal = await startOnEmulator({ REDIS_URL: redis.url, TRUST_PROXY: '1' })
    try {
      const email = uniqueEmail('store-down')
      await admin.createUser(email, password)
      const client = await signedInBrowser(portal.url, email, '198.51.100.33')
      const cookie = `session=${client.jar.get('session')}`
      expect(await accountStatus(portal.url, cookie)).toBe(200)
      await client.load('/logout')
      const other = await browserAt(portal.url, '198.51.100.34')

      redis.freeze()
      expect(await accountStatus(portal.url, cookie)).toBe(503)
      const logout = await client.submit('/logout', {}, { remember: true })
      expect(logout.status).toBe(503)
      expect(logout.headers.getSetCookie().some((c) => c.startsWith('session='))).toBe(false)
      const signIn = await other.signIn(email, password, { remember: true })
      expect(signIn.status).toBe(503)
      expect(signIn.headers.getSetCookie().some((c) => c.startsWith('session='))).toBe(false)

      redis.thaw()
      await waitFor('the session to open again', async () => (await accountStatus(portal.url, cookie)) === 200, 15_000)
    } finally {
      redis.thaw()
      await portal.stop()
      await redis.stop()
    }
  })
})
