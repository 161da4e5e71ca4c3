import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import Bowser from 'bowser'
import type { Redis } from 'ioredis'
import type { SignInMethod } from './finish-sign-in'
import { createRedisSessionStore } from './session-store-redis'

/**
 * Where the server keeps one record per signed-in browser (ADR 063). The browser's cookie holds a
 * random id; the store knows the record by the id's SHA-256 (`key`), so a copy of the store opens no
 * session. What could act for the visitor (the identity service's session, a fresh ID token) is
 * sealed in `sealed` with a key only that id gives (./session.ts).
 */
export interface SessionRecord {
  uid: string
  /** When the visitor signed in here, and when the record ends (ms since the epoch). */
  createdAt: number
  expiresAt: number
  /** The last request that used it, written at most once a minute. */
  lastSeenAt: number
  method: SignInMethod
  secondFactor: 'phone' | 'totp' | null
  /** "Keep me signed in" (ADR 037). */
  remembered: boolean
  /** What a person recognises the device by: browser and system from the User-Agent, and the client address. */
  device: { browser: string | null; os: string | null }
  ip: string
  sealed: string
}

export type StoredSession = SessionRecord & { key: string }

export interface SessionStore {
  readonly kind: 'sqlite' | 'memory' | 'redis'
  /** Adds a record; beyond `maxPerAccount` live records of its account, the oldest end. */
  add(key: string, record: SessionRecord, maxPerAccount: number): Promise<void>
  /** The live record, or null (never was, ended, or expired). */
  get(key: string): Promise<SessionRecord | null>
  /** Changes a live record; one that ended meanwhile stays ended. */
  update(key: string, changes: Partial<Pick<SessionRecord, 'lastSeenAt' | 'sealed'>>): Promise<void>
  /** Ends one record: true when it was live. Writes nothing for a key it does not hold. */
  remove(key: string): Promise<boolean>
  /** The account's live records, newest first. */
  list(uid: string): Promise<StoredSession[]>
  removeAll(uid: string): Promise<void>
  close(): Promise<void>
}

/**
 * The device as a person names it: "Firefox 153", "Linux". A name with a version of its own, as text
 * browsers give it ("Lynx/2.9.0dev.12 libwww-FM/2.14 …"), is cut to its first word and that version.
 */
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

/** The SQLite store: on disk (survives a restart), or `:memory:` (tests). */
export function createSqliteSessionStore(file: string): SessionStore {
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
  const db = new DatabaseSync(file)
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
    kind: file === ':memory:' ? 'memory' : 'sqlite',
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

/** The process's store: Redis when one is configured, else SQLite at SESSION_STORE_PATH. */
export function createSessionStore(options: { redis: Redis | null; file: string; waitForReplica: boolean }): SessionStore {
  return options.redis ? createRedisSessionStore(options.redis, options.waitForReplica) : createSqliteSessionStore(options.file)
}
