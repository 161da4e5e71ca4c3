import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { createSqliteSessionStore, deviceOf } from './session-store'

describe('deviceOf', () => {
  it.each([
    ['Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0', { browser: 'Firefox 153', os: 'Linux' }],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 19_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/19.1 Mobile/15E148 Safari/604.1',
      { browser: 'Safari 19', os: 'iOS' },
    ],
    ['Lynx/2.9.0dev.12 libwww-FM/2.14 SSL-MM/1.4.1 GNUTLS/3.7.9', { browser: 'Lynx 2', os: null }],
    ['', { browser: null, os: null }],
  ])('names %j as a person would', (userAgent, device) => {
    expect(deviceOf(userAgent)).toEqual(device)
  })
})

describe('the SQLite session store', () => {
  it('waits for another writer of its file to let go of the lock, instead of failing the request', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'session-store-'))
    const file = path.join(dir, 'sessions.db')
    const store = createSqliteSessionStore(file)
    // Another connection holds the write lock for 200 ms, from a thread of its own.
    const holder = new Worker(
      `const { DatabaseSync } = require('node:sqlite')
      const { parentPort, workerData } = require('node:worker_threads')
      const db = new DatabaseSync(workerData)
      db.exec('BEGIN IMMEDIATE')
      parentPort.postMessage('locked')
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200)
      db.exec('COMMIT')
      db.close()`,
      { eval: true, workerData: file },
    )
    try {
      await new Promise((resolve) => holder.once('message', resolve))
      const record = { uid: 'uid-1', createdAt: Date.now(), expiresAt: Date.now() + 60_000 }
      await store.add('key-1', record as Parameters<typeof store.add>[1], 10)
      expect(await store.get('key-1')).toMatchObject({ uid: 'uid-1' })
    } finally {
      await holder.terminate()
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
