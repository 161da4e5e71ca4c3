import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import Bowser from 'bowser'
import { getConfig } from '~/.server/config'
import { connectRedis } from '~/.server/redis'
import { createRedisSessionStore } from './session-store-redis'

export type SignInMethod = 'password' | 'email-link' | 'sso' | 'passkey'

export interface SessionRecord {
  uid: string
  createdAt: number
  expiresAt: number
  lastSeenAt: number
  method: SignInMethod
  secondFactor: 'phone' | 'totp' | null
  remembered: boolean
  device: { browser: string | null; os: string | null }
  ip: string
  sealed: string
}

export type StoredSession = SessionRecord & { key: string }

export interface SessionStore {
  add(key: string, record: SessionRecord, maxPerAccount: number): Promise<void>
  get(key: string): Promise<SessionRecord | null>
  update(key: string, changes: Partial<Pick<SessionRecord, 'lastSeenAt' | 'sealed'>>): Promise<void>
  remove(key: string): Promise<boolean>
  list(uid: string): Promise<StoredSession[]>
  removeAll(uid: string): Promise<void>
  close(): Promise<void>
}

export function deviceOf(userAgent: string): SessionRecord['device'] {
  if (!userAgent) return { browser: null, os: null }
  const { browser, os } = Bowser.parse(userAgent)
  const [name, ownVersion] = (browser.name ?? '').split(' ')[0]!.split('/')
  const major = (ownVersion ?? browser.version)?.split('.')[0]?.slice(0, 10)
  return {
    browser: name ? [name.slice(0, 40), major].filter(Boolean).join(' ') : null,
    os: os.name ? [os.name, os.versionName].filter(Boolean).join(' ').slice(0, 40) : null,
  }
}

export function createSqliteSessionStore(file: string): SessionStore {
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
  // Another process writing the file (an operator's sqlite3, a container restarting on the same volume) holds
  // its lock for milliseconds: a write waits up to a second for it instead of failing the request at once.
  const db = new DatabaseSync(file, { timeout: 1_000 })
  if (file !== ':memory:') db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;')
  db.exec(`CREATE TABLE IF NOT EXISTS sessions (
    key TEXT PRIMARY KEY,
    uid TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    record TEXT NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS sessions_by_uid ON sessions (uid, created_at);
  CREATE INDEX IF NOT EXISTS sessions_by_expiry ON sessions (expires_at);`)
  const statements = {
    insert: db.prepare('INSERT INTO sessions (key, uid, created_at, expires_at, record) VALUES (?, ?, ?, ?, ?)'),
    get: db.prepare('SELECT record FROM sessions WHERE key = ? AND expires_at > ?'),
    update: db.prepare('UPDATE sessions SET record = ? WHERE key = ? AND expires_at > ?'),
    remove: db.prepare('DELETE FROM sessions WHERE key = ? AND expires_at > ?'),
    list: db.prepare('SELECT key, record FROM sessions WHERE uid = ? AND expires_at > ? ORDER BY created_at DESC, key'),
    beyond: db.prepare(
      'DELETE FROM sessions WHERE key IN (SELECT key FROM sessions WHERE uid = ? ORDER BY created_at DESC, key LIMIT -1 OFFSET ?)',
    ),
    removeAll: db.prepare('DELETE FROM sessions WHERE uid = ?'),
    sweep: db.prepare('DELETE FROM sessions WHERE expires_at <= ?'),
  }
  const sweeper = setInterval(() => statements.sweep.run(Date.now()), 60_000).unref()
  const parse = (json: unknown) => JSON.parse(String(json)) as SessionRecord

  return {
    async add(key, record, maxPerAccount) {
      statements.insert.run(key, record.uid, record.createdAt, record.expiresAt, JSON.stringify(record))
      statements.beyond.run(record.uid, maxPerAccount)
    },
    async get(key) {
      const row = statements.get.get(key, Date.now())
      return row ? parse(row.record) : null
    },
    async update(key, changes) {
      const row = statements.get.get(key, Date.now())
      if (row) statements.update.run(JSON.stringify({ ...parse(row.record), ...changes }), key, Date.now())
    },
    async remove(key) {
      return Number(statements.remove.run(key, Date.now()).changes) > 0
    },
    async list(uid) {
      return statements.list.all(uid, Date.now()).map((row) => ({ ...parse(row.record), key: String(row.key) }))
    },
    async removeAll(uid) {
      statements.removeAll.run(uid)
    },
    async close() {
      clearInterval(sweeper)
      db.close()
    },
  }
}

// The store knows a record by the SHA-256 of the cookie's id, and its secrets are sealed
// with a key derived from the id: a copy of the store opens nothing (see ADR 063).

export interface Secrets {
  identity: string
  recent: string | null
  recentUntil: number
}

/** Anything else, an older cookie format included, opens nothing. */
export const SESSION_ID = /^[\w-]{43}$/
export const keyOf = (id: string) => createHash('sha256').update(id).digest('base64url')
const sealKey = (id: string) => Buffer.from(hkdfSync('sha256', id, 'portal-session-record', 'seal', 32))

export function seal(id: string, secrets: Secrets): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', sealKey(id), iv).setAAD(Buffer.from(keyOf(id)))
  const body = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
}

export function open(id: string, sealed: string): Secrets | null {
  try {
    const raw = Buffer.from(sealed, 'base64url')
    const decipher = createDecipheriv('aes-256-gcm', sealKey(id), raw.subarray(0, 12)).setAAD(Buffer.from(keyOf(id)))
    decipher.setAuthTag(raw.subarray(12, 28))
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as Secrets
  } catch {
    return null
  }
}

let store: SessionStore | null = null

export function getSessionStore(): SessionStore {
  if (store) return store
  const { redis, sessionStorePath: file } = getConfig()
  const client = connectRedis(redis)
  store = client ? createRedisSessionStore(client, redis.sentinels !== null) : createSqliteSessionStore(file)
  return store
}

export async function closeSessionStore(): Promise<void> {
  const closing = store
  store = null
  await closing?.close()
}
