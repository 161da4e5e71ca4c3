import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { RemoteFlags } from '../../app/.server/ops/flags'
import { captureLogs, logger } from '../../app/.server/ops/logger'
import { metrics } from '../../app/.server/ops/metrics'
import { startPortal, type Portal } from '../../dev/portal'
import { getFreePort, waitFor } from '../../dev/ports'
import { headingText } from '../support/http-browser'

/**
 * The remote flag service (FLAGS_OFREP_URL): a real HTTP server on loopback that speaks the
 * OpenFeature Remote Evaluation Protocol, in front of the production build.
 */

interface OfrepServer {
  url: string
  flags: Record<string, boolean>
  delayMs: number
  /** Answer every call with this status and no OFREP body (an outage behind a proxy). */
  failWith: number | null
  /** The Content-Type of every answer. */
  contentType: string
  requests: Array<{ path: string; authorization?: string; body: unknown }>
  /** How many calls it has answered so far. */
  answered: number
  close(): Promise<void>
}

async function startOfrepServer(flags: Record<string, boolean>, delayMs = 0): Promise<OfrepServer> {
  const state: Omit<OfrepServer, 'url' | 'close'> = {
    flags,
    delayMs,
    failWith: null,
    contentType: 'application/json',
    requests: [],
    answered: 0,
  }
  const server = http.createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (raw += chunk))
    req.on('end', () => {
      const body = raw ? (JSON.parse(raw) as { context?: Record<string, unknown> }) : {}
      state.requests.push({ path: req.url ?? '', authorization: req.headers.authorization, body })
      const send = (status: number, payload: unknown) => {
        if (res.destroyed) return
        state.answered += 1
        res.writeHead(status, { 'Content-Type': state.contentType })
        res.end(JSON.stringify(payload))
      }
      const answer = () => {
        if (state.failWith) return send(state.failWith, { message: 'unavailable' })
        const single = /^\/ofrep\/v1\/evaluate\/flags\/([^/?]+)$/.exec(req.url ?? '')
        if (req.method === 'POST' && single) {
          const key = decodeURIComponent(single[1] ?? '')
          if (!(key in state.flags)) {
            return send(404, { key, errorCode: 'FLAG_NOT_FOUND', errorDetails: `flag ${key} not found` })
          }
          const value = state.flags[key]
          return send(200, { key, value, variant: value ? 'on' : 'off', reason: 'STATIC', metadata: {} })
        }
        if (req.method === 'POST' && req.url === '/ofrep/v1/evaluate/flags') {
          return send(200, {
            flags: Object.entries(state.flags).map(([key, value]) => ({
              key,
              value,
              variant: value ? 'on' : 'off',
              reason: 'STATIC',
            })),
          })
        }
        send(404, { errorCode: 'GENERAL', errorDetails: 'not an OFREP endpoint' })
      }
      if (state.delayMs > 0) setTimeout(answer, state.delayMs)
      else answer()
    })
  })
  return Object.assign(state, await listening(server))
}

/**
 * A flag service whose answer for `sso` is about `size` bytes of valid JSON that costs far more once
 * parsed (an array of empty objects), streamed from one reused chunk at the pace the reader takes
 * it, so that the test's own memory stays flat.
 */
async function startHugeServer(size: number): Promise<{ url: string; requests: number; ended: number; close(): Promise<void> }> {
  const state = { requests: 0, ended: 0 }
  const head = Buffer.from('{"key":"sso","value":true,"variant":"on","reason":"STATIC","metadata":{"padding":[')
  const tail = Buffer.from('{}]}}')
  const chunk = Buffer.from('{},'.repeat(21_845))
  const chunks = Math.ceil(size / chunk.length)
  const length = head.length + chunks * chunk.length + tail.length
  const server = http.createServer((req, res) => {
    state.requests += 1
    req.resume()
    res.once('close', () => (state.ended += 1))
    // The first answers are ordinary (sso: true); then one huge answer at a time, so that one
    // reader takes it as fast as it can: the other flag is unknown.
    if (req.url !== '/ofrep/v1/evaluate/flags/sso') {
      res.writeHead(404, { 'Content-Type': 'application/json' })
      return void res.end(JSON.stringify({ key: 'emailLinkSignIn', errorCode: 'FLAG_NOT_FOUND' }))
    }
    if (state.requests <= 2) {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      return void res.end(JSON.stringify({ key: 'sso', value: true, variant: 'on', reason: 'STATIC' }))
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(length) })
    res.write(head)
    let left = chunks
    const pump = () => {
      while (left > 0 && !res.destroyed) {
        left -= 1
        if (!res.write(chunk)) return void res.once('drain', pump)
      }
      if (!res.destroyed) res.end(tail)
    }
    pump()
  })
  return Object.assign(state, await listening(server))
}

const TOKEN = 'Bearer ofrep-test-token-3f9c'
/** What production asks for on top; http on loopback is the one plain flag service it takes. */
const PRODUCTION = { PLATFORM: 'production', SESSION_SECRET: 'a-production-secret-of-at-least-32-characters' }
const SSO_TITLE = 'Single Sign-On enabled'

function portalEnv(env: Record<string, string>) {
  const emulator = inject('emulator')
  return { FIREBASE_AUTH_EMULATOR_HOST: emulator.host, FIREBASE_PROJECT_ID: emulator.projectId, ...env }
}

async function signInPage(portal: Portal) {
  const html = await (await fetch(`${portal.url}/`, { headers: { 'Accept-Language': 'en' } })).text()
  return {
    title: headingText(html),
    ssoButton: /formaction="\/sso\/start"/i.test(html),
  }
}

function flagFile(content: object) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'flags-')), 'flags.json')
  writeFileSync(file, JSON.stringify(content))
  return file
}

const SSO_ON_FILE = { flags: { sso: { state: 'ENABLED', variants: { on: true, off: false }, defaultVariant: 'on' } } }

function count(text: string, needle: string) {
  return text.split(needle).length - 1
}

describe('remote feature flags (OFREP) in the portal', () => {
  const servers: OfrepServer[] = []
  const portals: Portal[] = []
  afterEach(async () => {
    await Promise.all(portals.splice(0).map((p) => p.stop()))
    await Promise.all(servers.splice(0).map((s) => s.close()))
  })
  async function serve(flags: Record<string, boolean>, delayMs = 0) {
    const server = await startOfrepServer(flags, delayMs)
    servers.push(server)
    return server
  }
  async function portal(env: Record<string, string>) {
    const started = await startPortal(portalEnv(env))
    portals.push(started)
    return started
  }

  it('a service serving sso: true turns the single-sign-on title and button on, asked anonymously with the headers', async () => {
    const service = await serve({ sso: true })
    const p = await portal({
      FLAGS_OFREP_URL: service.url,
      FLAGS_OFREP_HEADERS: `Authorization: ${TOKEN}`,
      SSO_PROVIDER_ID: 'oidc.test',
    })
    const page = await signInPage(p)
    expect(page.title).toBe(SSO_TITLE)
    expect(page.ssoButton).toBe(true)
    const sso = service.requests.find((r) => r.path === '/ofrep/v1/evaluate/flags/sso')
    expect(sso).toMatchObject({ authorization: TOKEN, body: { context: { targetingKey: 'anonymous' } } })
    // Cached: the next pages do not call the service again.
    const calls = service.requests.length
    await signInPage(p)
    await signInPage(p)
    expect(service.requests.length).toBe(calls)
    expect(p.output()).not.toContain('ofrep-test-token')
    expect(p.output()).not.toContain('flags-remote-failed')
  })

  it('FLAG_SSO=false still wins over a service serving true', async () => {
    const service = await serve({ sso: true })
    const p = await portal({ FLAGS_OFREP_URL: service.url, FLAG_SSO: 'false', SSO_PROVIDER_ID: 'oidc.test' })
    const page = await signInPage(p)
    expect(page.title).toBe('Sign In')
    expect(page.ssoButton).toBe(false)
  })

  it('the service wins over the flag file, and a flag it does not know falls to the file', async () => {
    const file = flagFile(SSO_ON_FILE)
    const saysOff = await serve({ sso: false })
    expect((await signInPage(await portal({ FLAGS_OFREP_URL: saysOff.url, FLAGS_FILE: file }))).title).toBe('Sign In')
    const knowsNothing = await serve({ emailLinkSignIn: false })
    expect((await signInPage(await portal({ FLAGS_OFREP_URL: knowsNothing.url, FLAGS_FILE: file }))).title).toBe(
      SSO_TITLE,
    )
  })

  it('the service down at start: the portal starts, flags are off, and one warning is logged', async () => {
    const closedPort = await getFreePort()
    const p = await portal({
      FLAGS_OFREP_URL: `http://127.0.0.1:${closedPort}`,
      FLAGS_OFREP_HEADERS: `Authorization: ${TOKEN}`,
    })
    for (let i = 0; i < 3; i++) expect((await signInPage(p)).title).toBe('Sign In')
    await waitFor('the warning', async () => p.output().includes('flags-remote-failed'), 5_000)
    expect(count(p.output(), 'flags-remote-failed')).toBe(1)
    expect(p.output()).toContain('ECONNREFUSED')
    expect(p.output()).not.toContain('ofrep-test-token')
  })

  it('a sidecar over plain http on loopback (flagd in the pod) is followed under PLATFORM=production', async () => {
    const service = await serve({ sso: true })
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/)
    const p = await portal({ ...PRODUCTION, FLAGS_OFREP_URL: service.url, SSO_PROVIDER_ID: 'oidc.test' })
    expect((await signInPage(p)).title).toBe(SSO_TITLE)
    expect(service.requests.some((r) => r.path === '/ofrep/v1/evaluate/flags/sso')).toBe(true)
  })

  it('a 40 MB answer from a loopback sidecar under PLATFORM=production is not read past 64 KiB: the portal stays alive and keeps the last values, warns once', async () => {
    const huge = await startHugeServer(40 * 1024 * 1024)
    try {
      const p = await portal({
        ...PRODUCTION,
        FLAGS_OFREP_URL: huge.url,
        SSO_PROVIDER_ID: 'oidc.test',
        FLAGS_OFREP_MAX_AGE: '2',
      })
      expect((await signInPage(p)).title).toBe(SSO_TITLE)
      // Past the cache's age (FLAGS_OFREP_MAX_AGE), a page starts a refresh in the background: the huge answer.
      const calls = huge.requests
      await new Promise((resolve) => setTimeout(resolve, 2_500))
      expect((await signInPage(p)).title).toBe(SSO_TITLE)
      // Every answer begun has ended: read to its end, or dropped by the portal.
      await waitFor('the huge answer to end', async () => huge.requests > calls && huge.ended === huge.requests, 30_000)
      const page = () =>
        signInPage(p).catch((error: Error) => {
          throw new Error(`the portal is gone (${error.message}): ${p.output().slice(-400)}`)
        })
      for (let i = 0; i < 3; i++) expect((await page()).title).toBe(SSO_TITLE)
      await waitFor('the warning', async () => p.output().includes('flags-remote-failed'), 10_000)
      expect(count(p.output(), 'flags-remote-failed')).toBe(1)
      expect(p.output()).toContain('answer over 65536 bytes')
    } finally {
      await huge.close()
    }
  }, 120_000)

  it('a slow service (answers after 5 s) does not hold the page: it is answered with the defaults before the service answers', async () => {
    const service = await serve({ sso: true }, 5_000)
    const p = await portal({ FLAGS_OFREP_URL: service.url })
    const first = await signInPage(p)
    expect(first.title).toBe('Sign In')
    const second = await signInPage(p)
    expect(second.title).toBe('Sign In')
    // Both pages were answered while the service had answered nothing yet: they did not wait for it.
    expect(service.requests.length).toBeGreaterThan(0)
    expect(service.answered).toBe(0)
    await waitFor('the warning', async () => p.output().includes('flags-remote-failed'), 6_000)
    expect(p.output()).toMatch(/no answer within \d+ ms/)
    expect(count(p.output(), 'flags-remote-failed')).toBe(1)
  })
})

/** The cache itself, in process, with short periods: last values through an outage, one warning per outage. */
describe('RemoteFlags cache', () => {
  const level = logger.level
  beforeAll(() => {
    logger.level = 'info'
  })
  afterAll(() => {
    logger.level = level
  })

  // A local answer must come within these even on a crowded machine; only the cache's age is short.
  const timing = { callTimeoutMs: 3_000, firstWaitMs: 2_000, maxAgeMs: 100 }
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

  it('keeps the last values while the service fails, warns once, and notes the recovery', async () => {
    const service = await startOfrepServer({ sso: true, emailLinkSignIn: false })
    const logs = captureLogs()
    try {
      const flags = new RemoteFlags({ url: service.url, headers: [['Authorization', TOKEN]], maxAgeMs: timing.maxAgeMs }, timing)
      expect(await flags.get()).toEqual({ sso: true, emailLinkSignIn: false })

      service.failWith = 503
      for (let i = 0; i < 5; i++) {
        await sleep(150)
        expect(await flags.get()).toEqual({ sso: true, emailLinkSignIn: false })
      }
      expect(count(logs.text(), 'flags-remote-failed')).toBe(1)
      expect(logs.text()).toContain('HTTP 503')

      service.failWith = null
      service.flags = { sso: false }
      await waitFor(
        'the new values',
        async () => {
          const values = await flags.get()
          return values.sso === false && !('emailLinkSignIn' in values)
        },
        10_000,
      )
      await waitFor('the recovery line', async () => logs.text().includes('flags-remote-recovered'), 10_000)
      expect(count(logs.text(), 'flags-remote-failed')).toBe(1)
      expect(logs.text()).not.toContain('ofrep-test-token')
    } finally {
      logs.stop()
      await service.close()
    }
  })

  it('has its age in portal_cache_age_seconds: it grows while the service fails, and starts again at its next answer', async () => {
    const cacheAge = async () =>
      (await metrics.registry.getSingleMetric('portal_cache_age_seconds')?.get())?.values.find(
        (v) => v.labels.cache === 'flags',
      )?.value ?? NaN
    const service = await startOfrepServer({ sso: true })
    try {
      const flags = new RemoteFlags({ url: service.url, headers: [], maxAgeMs: timing.maxAgeMs }, timing)
      expect(await flags.get()).toEqual({ sso: true })
      expect(await cacheAge()).toBeLessThan(1)

      service.failWith = 503
      const failing = service.answered
      await waitFor('failed refreshes', async () => (await flags.get(), service.answered > failing + 2), 5_000)
      await sleep(1_100)
      await flags.get()
      expect(await cacheAge()).toBeGreaterThanOrEqual(1)

      service.failWith = null
      await waitFor('a fresh answer', async () => (await flags.get(), (await cacheAge()) < 1), 5_000)
    } finally {
      await service.close()
    }
  })

  it('uses no answer that is not JSON (Content-Type), and takes the values once it is', async () => {
    const service = await startOfrepServer({ sso: true })
    service.contentType = 'text/html; charset=utf-8'
    const logs = captureLogs()
    try {
      const flags = new RemoteFlags({ url: service.url, headers: [], maxAgeMs: timing.maxAgeMs }, timing)
      expect(await flags.get()).toEqual({})
      await waitFor('the warning', async () => logs.text().includes('flags-remote-failed'), 10_000)
      expect(logs.text()).toContain('not JSON: text/html')
      expect(await flags.get()).toEqual({})

      service.contentType = 'application/json; charset=utf-8'
      await waitFor('the values', async () => (await flags.get()).sso === true, 10_000)
    } finally {
      logs.stop()
      await service.close()
    }
  })

  it('never makes a caller wait longer than the first wait, nor at all once it has waited', async () => {
    const service = await startOfrepServer({ sso: true }, 5_000)
    try {
      const flags = new RemoteFlags(
        { url: service.url, headers: [], maxAgeMs: timing.maxAgeMs },
        { ...timing, callTimeoutMs: 10_000 },
      )
      expect(await flags.get()).toEqual({})
      expect(await flags.get()).toEqual({})
      // Both callers had their answer while the service had answered nothing: neither waited for it.
      expect(service.answered).toBe(0)
      // The slow answer still lands, for later pages.
      await waitFor('the late answer', async () => (await flags.get()).sso === true, 8_000)
    } finally {
      await service.close()
    }
  })
})

/** Listens on a free loopback port; `close` also cuts the connections still open. */
async function listening(server: http.Server): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>()
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
