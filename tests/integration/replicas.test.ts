import { existsSync } from 'node:fs'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { SERVER_ENTRY, startPortal, type Portal } from '../../dev/portal'
import { getFreePort, waitFor } from '../../dev/ports'
import { logLines } from '../support/portal'
import { startNginx, type Nginx } from '../support/nginx'
import { type TestRedis, startRedis } from '../support/redis'
import { HttpBrowser } from '../support/http-browser'

/**
 * Two replicas of the production build behind a real nginx (deploy/nginx.conf and portal-proxy.conf, the
 * deployment example's proxy settings) with a real Redis, against the shared Auth emulator:
 * sessions work on either replica, rate limits count across both, a replica stopped under load
 * loses no request, and /readyz reports the identity service without following it (ADR 029). Everything runs on loopback ports
 * and is stopped in afterAll.
 */

const SESSION_SECRET = 'replica-test-session-secret-0123456789abcdef'
const PASSWORD = 'Replica-password-2026'
const SHUTDOWN_TIMEOUT_MS = 5_000

const emu = inject('emulator')
const admin = emulatorAdmin(emu)

/** A TCP relay to the emulator that can be stopped (connection refused, open sockets cut) and started again. */
function tcpProxy(listenPort: number, targetPort: number) {
  const sockets = new Set<net.Socket>()
  let server: net.Server | null = null
  const track = (socket: net.Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  }
  return {
    async start() {
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, '127.0.0.1')
        track(client)
        track(upstream)
        client.on('error', () => upstream.destroy())
        upstream.on('error', () => client.destroy())
        client.pipe(upstream).pipe(client)
      })
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject)
        server!.listen(listenPort, '127.0.0.1', () => resolve())
      })
    },
    async stop() {
      const closing = server
      server = null
      for (const socket of sockets) socket.destroy()
      if (closing) await new Promise((resolve) => closing.close(resolve))
    },
  }
}


describe('two replicas behind nginx, with Redis', () => {
  let redis: TestRedis | undefined
  let nginx: Nginx | undefined
  let replicas: Portal[] = []
  let publicUrl = ''
  let redisUrl = ''
  let setupError: Error | undefined

  beforeAll(async () => {
    try {
      // Fail loudly: a missing build must never turn into skipped or vacuous tests.
      if (!existsSync(SERVER_ENTRY)) {
        throw new Error(`${SERVER_ENTRY} is missing. Run \`npm run build\` first (\`npm test\` builds before vitest).`)
      }
      redis = await startRedis()
      const nginxPort = await getFreePort()
      redisUrl = redis.url

      publicUrl = `http://127.0.0.1:${nginxPort}`
      const env = {
        FIREBASE_AUTH_EMULATOR_HOST: emu.host,
        FIREBASE_PROJECT_ID: emu.projectId,
        REDIS_URL: redisUrl,
        TRUST_PROXY: '1',
        SESSION_SECRET,
        PUBLIC_URL: publicUrl,
        RATE_LIMIT_SIGNIN_PER_EMAIL_IP: '3',
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
        LOG_LEVEL: 'info',
      }
      const started = await Promise.allSettled([startPortal(env), startPortal(env)])
      replicas = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
      const failed = started.find((r) => r.status === 'rejected')
      if (failed) throw failed.reason

      // deploy/nginx.conf itself, telling the test which replica answered.
      nginx = await startNginx(
        nginxPort,
        replicas.map((r) => r.port),
        (conf) => conf.replace(/^( *)(include .*portal-proxy\.conf;)$/gm, '$1$2\n$1add_header X-Upstream $upstream_addr always;'),
      )
    } catch (error) {
      setupError = error as Error
    }
  })

  afterAll(async () => {
    await nginx?.stop()
    await Promise.all(replicas.map((r) => r.stop()))
    await redis?.stop()
  })

  function ready() {
    if (setupError) throw setupError
    const [a, b] = replicas
    return { a: a!, b: b! }
  }

  it('signs in through nginx, and the session cookie works on both replicas', async () => {
    const { a, b } = ready()
    const email = uniqueEmail('replica')
    await admin.createUser(email, PASSWORD)

    const form = await new HttpBrowser(publicUrl).load()
    const signedIn = await form.submit('/?index', { email, password: PASSWORD })
    expect(signedIn.status, await signedIn.clone().text()).toBe(303)
    const session = signedIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .find((c) => c.startsWith('session='))
    expect(session).toBeDefined()

    // The cookie is host-only for the nginx origin: each replica gets it explicitly.
    for (const replica of [a, b]) {
      const page = await fetch(`${replica.url}/`, { headers: { Cookie: session! } })
      expect(page.status).toBe(200)
      expect(await page.text()).toContain(email)
    }
    const anonymous = await (await fetch(`${a.url}/`)).text()
    expect(anonymous).not.toContain(email)
  })

  it('counts failed sign-ins across replicas, by the address nginx saw', async () => {
    const { a, b } = ready()
    const email = uniqueEmail('limited')
    await admin.createUser(email, PASSWORD)
    // A forged first hop: nginx appends the real peer, and TRUST_PROXY=1 believes only that one.
    const forged = { 'X-Forwarded-For': '203.0.113.7', 'Accept-Language': 'en' }
    const form = await new HttpBrowser(publicUrl, { headers: forged }).load()

    const answers: { status: number; upstream: string | null; retryAfter: string | null }[] = []
    for (let i = 0; i < 4; i++) {
      const res = await form.submit('/?index', { email, password: 'Wrong-password-1' })
      await res.arrayBuffer()
      answers.push({
        status: res.status,
        upstream: res.headers.get('x-upstream'),
        retryAfter: res.headers.get('retry-after'),
      })
    }
    expect(answers.map((x) => x.status)).toEqual([400, 400, 400, 429])
    expect(Number(answers[3]!.retryAfter)).toBeGreaterThan(0)
    // Round robin: the attempts went to both replicas, so only a shared counter reaches 3.
    expect(new Set(answers.map((x) => x.upstream)).size).toBe(2)

    const events = [...logLines(a), ...logLines(b)].filter((l) => l.security === true)
    const failures = events.filter((l) => l.event === 'sign-in-failure')
    const hits = events.filter((l) => l.event === 'rate-limit' && l.limiter === 'signInPerEmailIp')
    expect(failures.length).toBeGreaterThanOrEqual(3)
    expect(hits.length).toBeGreaterThanOrEqual(1)
    for (const line of [...failures, ...hits]) expect(line.ip).toBe('127.0.0.1')
    expect(a.output() + b.output()).not.toContain('203.0.113.7')
  })

  it('keeps answering on both replicas while Redis is down, on in-memory limits', async () => {
    const { a, b } = ready()
    await redis!.stop()
    try {
      const form = await new HttpBrowser(publicUrl, { headers: { 'Accept-Language': 'en' } }).load()
      const email = uniqueEmail('no-redis')
      const statuses: number[] = []
      // Round robin: each replica's own counter reaches the limit (3) after 6 posts.
      for (let i = 0; i < 8; i++) {
        const res = await form.submit('/?index', { email, password: 'Wrong-password-1' })
        await res.arrayBuffer()
        statuses.push(res.status)
      }
      // Every answer is a page: 400 until each replica's own counter reaches the limit, then 429.
      expect(statuses.every((status) => status === 400 || status === 429), JSON.stringify(statuses)).toBe(true)
      expect(statuses).toContain(429)
      // Said once each replica's connection has failed: an event of its own, not of a request.
      for (const replica of [a, b]) await waitFor('rate-limit-fallback', async () => replica.output().includes('rate-limit-fallback'), 5_000)
    } finally {
      await redis!.restart()
    }
  })

  it('loses no request when a replica is stopped under load; it exits 0 within the shutdown time-out', async () => {
    const { a, b } = ready()
    const TOTAL = 300
    const CONCURRENCY = 5
    const STOP_AFTER = 80
    const statuses = new Map<number, number>()
    const failures: string[] = []
    const servedBy = new Set<string>()
    let sent = 0
    let done = 0
    let stopping: Promise<{ code: number | null; ms: number }> | undefined

    async function worker() {
      while (sent < TOTAL) {
        sent++
        try {
          const res = await fetch(`${publicUrl}/`, { headers: { 'Accept-Language': 'en' } })
          await res.arrayBuffer()
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
          if (res.status !== 200) failures.push(`${res.status} from ${res.headers.get('x-upstream')}`)
          servedBy.add(res.headers.get('x-upstream') ?? '')
        } catch (error) {
          failures.push(String(error))
        }
        if (++done === STOP_AFTER) {
          const t0 = Date.now()
          stopping = a.stop('SIGTERM').then((code) => ({ code, ms: Date.now() - t0 }))
        }
        // Spread the load over a few seconds.
        await new Promise((r) => setTimeout(r, 10))
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker))

    expect(stopping).toBeDefined()
    const stopped = await stopping!
    expect(failures, `statuses ${JSON.stringify([...statuses])}`).toEqual([])
    expect(statuses.get(200)).toBe(TOTAL)
    expect(servedBy).toContain(`127.0.0.1:${a.port}`)
    expect(servedBy).toContain(`127.0.0.1:${b.port}`)
    expect(stopped.code, a.output().slice(-2_000)).toBe(0)
    expect(stopped.ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS)
    expect(a.output()).toContain('"msg":"shut down"')
    // The last requests all went to the replica still running.
    const after = await fetch(`${publicUrl}/healthz`)
    expect(after.headers.get('x-upstream')).toMatch(new RegExp(`127\\.0\\.0\\.1:${b.port}$`))
  })

  it('answers /readyz 200 while the identity service is unreachable, saying so, and up once it is back', async () => {
    ready()
    const [proxyPort, emulatorPort] = [await getFreePort(), Number(new URL(emu.origin).port)]
    const proxy = tcpProxy(proxyPort, emulatorPort)
    await proxy.start()
    let portal: Portal | undefined
    try {
      portal = await startPortal({
        FIREBASE_AUTH_EMULATOR_HOST: `127.0.0.1:${proxyPort}`,
        FIREBASE_PROJECT_ID: emu.projectId,
        REDIS_URL: redisUrl,
        SESSION_SECRET,
        LOG_LEVEL: 'warn',
      })
      const readyz = async () => {
        const res = await fetch(`${portal!.url}/readyz`)
        return { status: res.status, body: (await res.json()) as unknown, cookie: res.headers.get('set-cookie') }
      }
      const statuses: number[] = []
      const identityIs = (state: string) => async () => {
        const answer = await readyz()
        statuses.push(answer.status)
        return JSON.stringify(answer.body).includes(`"identity":"${state}"`)
      }
      await waitFor('identity up', identityIs('up'), 10_000)
      expect(await readyz()).toEqual({
        status: 200,
        body: { status: 'ok', dependencies: { identity: 'up', redis: 'up' } },
        cookie: null,
      })

      // The replica stays in the load balancer: an identity outage is the portal's to answer (503 pages).
      await proxy.stop()
      await waitFor('identity down', identityIs('down'), 15_000)
      expect(await readyz()).toEqual({
        status: 200,
        body: { status: 'ok', dependencies: { identity: 'down', redis: 'up' } },
        cookie: null,
      })
      expect((await fetch(`${portal.url}/healthz`)).status).toBe(200)

      await proxy.start()
      await waitFor('identity up again', identityIs('up'), 15_000)
      expect(new Set(statuses)).toEqual(new Set([200]))
    } finally {
      await portal?.stop()
      await proxy.stop()
    }
  })
})
