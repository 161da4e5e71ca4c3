import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, inject, it, vi } from 'vitest'
import { parseConfig } from '../../app/.server/config'
import { createApp } from '../../app/.server/http/app'
import { captureLogs, logger } from '../../app/.server/ops/logger'
import { routeLabeler } from '../../app/.server/http/router-handler'
import { metrics } from '../../app/.server/ops/metrics'
import { createReadiness, type Readiness } from '../../app/.server/http/readiness'
import { recaptchaEnforced, refreshRecaptcha } from '../../app/.server/identity/recaptcha'
import type { RecaptchaConfig } from '../../app/.server/identity'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { fakeBuild } from '../support/fake-build'
import { waitFor } from '../../dev/ports'
import { logLines, ownPortal, startOnEmulator } from '../support/portal'
import { HttpBrowser } from '../support/http-browser'

/**
 * Operations: /healthz and /readyz, the access log, and Prometheus metrics on their own port.
 * First at the express level with a one-route fake build, then on the production build.
 */

const build = fakeBuild(
  { loader: () => Response.json({ ok: true }) },
  { 'routes/$': { path: '*', module: { loader: () => new Response('Not Found', { status: 404 }) } } },
)

type AccessLine = {
  level: string
  msg: string
  reqId: string
  method: string
  route: string
  status: number
  ms: number
}

describe('the HTTP server (express level)', () => {
  let server: Server | undefined
  afterEach(() => {
    server?.close()
    server = undefined
  })

  async function serve(readiness: Readiness): Promise<string> {
    const result = parseConfig({})
    if (!result.ok) throw new Error(result.errors.join())
    server = createApp({ config: result.config, build, readiness }).listen(0, '127.0.0.1')
    await new Promise((r) => server!.once('listening', r))
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }

  const redisReady = () => null
  const ready = (identity: () => Promise<unknown>) => {
    const readiness = createReadiness({ identity, redis: redisReady, onProbe: () => undefined })
    readiness.markStarted()
    return readiness
  }

  it('answers /readyz 200 when the identity service answers, without cookies', async () => {
    const base = await serve(ready(async () => ({})))
    const res = await fetch(`${base}/readyz`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ok', dependencies: { identity: 'up' } })
    expect(res.headers.get('set-cookie')).toBeNull()
    expect(res.headers.get('cache-control')).toBe('no-store')
  })

  it('answers /readyz 200 naming the dependency that is down', async () => {
    const base = await serve(ready(() => Promise.reject(new Error('down'))))
    const res = await fetch(`${base}/readyz`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ok', dependencies: { identity: 'down' } })
  })

  it('answers /readyz 503 while starting and as soon as shutdown starts, while /healthz stays 200', async () => {
    const readiness = createReadiness({ identity: async () => ({}), redis: redisReady, onProbe: () => undefined })
    const base = await serve(readiness)
    expect((await fetch(`${base}/readyz`)).status).toBe(503)
    readiness.markStarted()
    expect((await fetch(`${base}/readyz`)).status).toBe(200)
    readiness.startShutdown()
    const res = await fetch(`${base}/readyz`)
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({ status: 'draining', dependencies: { identity: 'up' } })
    expect((await fetch(`${base}/healthz`)).status).toBe(200)
  })

  it('writes one access-log line per request: reqId, method, route, status, ms; no query string, no cookie', async () => {
    const base = await serve(ready(async () => ({})))
    const previous = logger.level
    logger.level = 'info'
    const logs = captureLogs()
    try {
      const res = await fetch(`${base}/?oobCode=SECRET-CODE-123&_data=root`, {
        headers: { 'X-Request-Id': 'ops-test-1', Cookie: 'session=SECRET-COOKIE-456' },
      })
      expect(res.status).toBe(200)
      expect(res.headers.get('x-request-id')).toBe('ops-test-1')
      const missing = await fetch(`${base}/wp-login.php?x=1`, { headers: { 'X-Request-Id': 'not a valid id!' } })
      expect(missing.status).toBe(404)
      const generated = missing.headers.get('x-request-id')
      expect(generated).toMatch(/^[0-9a-f-]{36}$/)
      await new Promise((r) => setTimeout(r, 50))

      const lines = logs.lines.map((l) => JSON.parse(l) as AccessLine).filter((l) => l.msg === 'request')
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatchObject({ level: 'info', reqId: 'ops-test-1', method: 'GET', route: '/', status: 200 })
      expect(lines[1]).toMatchObject({ reqId: generated, method: 'GET', route: 'other', status: 404 })
      for (const line of lines) expect(typeof line.ms).toBe('number')
      expect(logs.text()).not.toMatch(/SECRET|oobCode|wp-login|Cookie/i)
    } finally {
      logs.stop()
      logger.level = previous
    }
  })
})

describe('route labels', () => {
  const label = routeLabeler({
    root: { path: '' },
    'routes/_index': { parentId: 'root', index: true },
    'routes/forgot-password': { parentId: 'root', path: 'forgot-password' },
    'routes/users.$id': { parentId: 'root', path: 'users/:id' },
    'routes/$': { parentId: 'root', path: '*' },
  })

  it('are the matched route patterns, data requests included, never raw paths', () => {
    expect(label('/')).toBe('/')
    expect(label('/_.data')).toBe('/')
    expect(label('/forgot-password')).toBe('/forgot-password')
    expect(label('/forgot-password/')).toBe('/forgot-password')
    expect(label('/forgot-password.data')).toBe('/forgot-password')
    expect(label('/users/42')).toBe('/users/:id')
    expect(label('/healthz')).toBe('/healthz')
    expect(label('/no/such/page')).toBe('other')
    expect(label('/.env')).toBe('other')
  })
})

describe('the reCAPTCHA flag', () => {
  const config = (emailPassword: RecaptchaConfig['emailPassword']): RecaptchaConfig => ({
    recaptchaKey: null,
    siteKey: null,
    emailPassword,
    phone: 'OFF',
  })

  it('is the last answer of the identity service, kept when it cannot be asked', async () => {
    expect(await refreshRecaptcha(async () => config('OFF'))).toBe(false)
    expect(recaptchaEnforced()).toBe(false)
    expect(await refreshRecaptcha(async () => config('AUDIT'))).toBe(true)
    expect(await refreshRecaptcha(() => Promise.reject(new Error('unreachable')))).toBe(true)
    expect(recaptchaEnforced()).toBe(true)
    expect(await refreshRecaptcha(async () => config('ENFORCE'))).toBe(true)
    expect(await refreshRecaptcha(async () => config('OFF'))).toBe(false)
  })

  it('is on too when only SMS (phone) sign-in demands reCAPTCHA: the second-factor step loads it (ADR 022)', async () => {
    expect(await refreshRecaptcha(async () => ({ ...config('OFF'), phone: 'ENFORCE' }))).toBe(true)
    expect(recaptchaEnforced()).toBe(true)
    expect(await refreshRecaptcha(async () => config('OFF'))).toBe(false)
  })

  it('has its cache age in portal_cache_age_seconds, from the last answer: a failed read does not renew it', async () => {
    const cacheAge = async (cache: string) =>
      (await metrics.registry.getSingleMetric('portal_cache_age_seconds')?.get())?.values.find(
        (v) => v.labels.cache === cache,
      )?.value
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(new Date('2026-01-01T00:00:00Z'))
      await refreshRecaptcha(async () => config('OFF'))
      expect(await cacheAge('recaptcha')).toBe(0)
      vi.setSystemTime(new Date('2026-01-01T00:01:30Z'))
      expect(await cacheAge('recaptcha')).toBe(90)
      await refreshRecaptcha(() => Promise.reject(new Error('unreachable')))
      vi.setSystemTime(new Date('2026-01-01T00:10:00Z'))
      expect(await cacheAge('recaptcha')).toBe(600)
      await refreshRecaptcha(async () => config('OFF'))
      expect(await cacheAge('recaptcha')).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })

  it('never makes a caller wait: concurrent refreshes share one call', async () => {
    let calls = 0
    let answer: (c: RecaptchaConfig) => void = () => undefined
    const slow = () => {
      calls++
      return new Promise<RecaptchaConfig>((resolve) => (answer = resolve))
    }
    const first = refreshRecaptcha(slow)
    const second = refreshRecaptcha(slow)
    expect(recaptchaEnforced()).toBe(false) // read while the call is pending
    answer(config('ENFORCE'))
    expect(await Promise.all([first, second])).toEqual([true, true])
    expect(calls).toBe(1)
    await refreshRecaptcha(async () => config('OFF'))
  })
})

const emu = inject('emulator')

describe('the production build', () => {
  const portal = ownPortal({ LOG_LEVEL: 'info', RATE_LIMIT_RESET_PER_EMAIL: '1' }, { metrics: true })

  it('does not serve /metrics on the public port', async () => {
    const res = await fetch(`${portal.url}/metrics`)
    expect(res.status).toBe(404)
  })

  it('answers /readyz 200 against the emulator', async () => {
    const res = await fetch(`${portal.url}/readyz`)
    expect(await res.json()).toEqual({ status: 'ok', dependencies: { identity: 'up' } })
    expect(res.status).toBe(200)
  })

  it('serves the named metrics on METRICS_PORT after some requests', async () => {
    const { url } = portal
    const email = uniqueEmail('metrics')
    await emulatorAdmin(emu).createUser(email, 'Right-password-1')

    expect((await fetch(`${url}/?oobCode=SHOULD-NOT-APPEAR`)).status).toBe(200)
    const signInForm = await new HttpBrowser(url).load()
    expect((await signInForm.submit('/?index', { email, password: 'Wrong-password-1' })).status).toBe(400)
    const signedIn = await signInForm.submit('/?index', { email, password: 'Right-password-1' })
    expect(signedIn.status).toBe(303)
    const session = signedIn.headers.getSetCookie().find((c) => c.startsWith('session='))!.split(';')[0]!
    expect((await fetch(`${url}/`, { headers: { Cookie: session } })).status).toBe(200)
    const resetForm = await new HttpBrowser(url).load('/forgot-password')
    expect((await resetForm.submit('/forgot-password', { email })).status).toBe(303)
    expect((await resetForm.submit('/forgot-password', { email })).status).toBe(303) // refused by RATE_LIMIT_RESET_PER_EMAIL=1
    expect((await fetch(`${url}/healthz`)).status).toBe(200)

    const res = await fetch(portal.metricsUrl)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/plain')
    let text = await res.text()
    // The reset email is sent off the response path: its identity call may still be in flight.
    await waitFor(
      'the identity calls to end',
      async () => /^portal_identity_calls_in_flight 0$/m.test((text = await (await fetch(portal.metricsUrl)).text())),
      10_000,
    )
    const metric = (pattern: RegExp) => expect(text, pattern.source).toMatch(pattern)
    metric(/^http_request_duration_seconds_count\{route="\/",method="GET",status="200"\} \d+/m)
    metric(/^http_request_duration_seconds_count\{route="\/",method="POST",status="400"\} 1$/m)
    metric(/^http_request_duration_seconds_count\{route="\/forgot-password",method="POST",status="303"\} 2$/m)
    metric(/^http_request_duration_seconds_count\{route="\/healthz",method="GET",status="200"\} \d+/m)
    metric(/^http_request_duration_seconds_count\{route="other",method="GET",status="404"\} \d+/m)
    metric(/^portal_sign_in_total\{outcome="success"\} 1$/m)
    metric(/^portal_sign_in_total\{outcome="auth\/(wrong-password|invalid-credential)"\} 1$/m)
    metric(/^portal_password_reset_requests_total\{outcome="accepted"\} 1$/m)
    metric(/^portal_password_reset_requests_total\{outcome="limited"\} 1$/m)
    metric(/^portal_rate_limit_hits_total\{limiter="resetPerEmail"\} 1$/m)
    metric(/^portal_identity_call_duration_seconds_count\{call="signInWithPassword",outcome="ok"\} 1$/m)
    metric(/^portal_identity_call_duration_seconds_count\{call="signInWithPassword",outcome="auth\/[a-z-]+"\} 1$/m)
    metric(/^portal_identity_call_duration_seconds_count\{call="getProjectConfig",outcome="ok"\} \d+/m)
    metric(/^portal_build_info\{version="\d+\.\d+\.\d+",commit="(?:[0-9a-f]{12}|unknown)",node="\d+\.\d+\.\d+"\} 1$/m)
    metric(/^portal_identity_calls_in_flight 0$/m)
    metric(/^portal_identity_max_in_flight 256$/m)
    metric(/^portal_rate_limit_store\{mode="memory"\} 1$/m)
    metric(/^portal_session_verification_seconds_count\{outcome="signed-in"\} 1$/m)
    // Both read at start-up or by the pages above; no remote flag service is set, so no flags cache.
    metric(/^portal_cache_age_seconds\{cache="recaptcha"\} \d+(\.\d+)?$/m)
    metric(/^portal_cache_age_seconds\{cache="authorized_domains"\} \d+(\.\d+)?$/m)
    expect(text).not.toContain('cache="flags"')
    metric(/^process_cpu_user_seconds_total \d/m)
    metric(/^nodejs_eventloop_lag_seconds \d/m)
    expect(text).not.toContain(email)
    expect(text).not.toMatch(/SHOULD-NOT-APPEAR|oobCode|\?/)

    expect((await fetch(portal.metricsUrl.replace('/metrics', '/other'))).status).toBe(404)
  })

  it('logs each request as one JSON line with reqId, method, route, status and ms, and returns X-Request-Id', async () => {
    const { url } = portal
    const res = await fetch(`${url}/new-password?oobCode=SECRET-OOB-789`, {
      headers: { 'X-Request-Id': 'ops-build-42' },
      redirect: 'manual',
    })
    await res.arrayBuffer()
    expect(res.headers.get('x-request-id')).toBe('ops-build-42')
    const deadline = Date.now() + 5_000
    let line: AccessLine | undefined
    while (!line && Date.now() < deadline) {
      line = logLines<AccessLine>(portal).find((l) => l.msg === 'request' && l.reqId === 'ops-build-42')
      if (!line) await new Promise((r) => setTimeout(r, 50))
    }
    expect(line).toMatchObject({ level: 'info', method: 'GET', route: '/new-password', status: res.status })
    // Which program and version wrote it, on every line.
    expect(line).toMatchObject({ service: 'auth-portal', version: expect.stringMatching(/^\d+\.\d+\.\d+$/) })
    expect(typeof line?.ms).toBe('number')
    expect(portal.output()).not.toContain('SECRET-OOB-789')
  })

  it('prints human-readable lines with PLATFORM=local, JSON otherwise', async () => {
    expect(portal.output()).toMatch(/^\{"level":"info".*"msg":"portal listening"\}$/m)
    const local = await startOnEmulator({ PLATFORM: 'local', LOG_LEVEL: 'info' })
    try {
      await (await fetch(`${local.url}/`, { headers: { 'X-Request-Id': 'pretty-1' } })).arrayBuffer()
      await new Promise((r) => setTimeout(r, 100))
      expect(local.output()).toMatch(/INFO.*portal listening/)
      // One line per entry (singleLine): the message, then its fields.
      expect(local.output()).toMatch(/INFO: request \{.*"reqId":"pretty-1"/)
      expect(local.output()).not.toMatch(/^\{"level"/m)
    } finally {
      expect(await local.stop()).toBe(0)
    }
  })
})
