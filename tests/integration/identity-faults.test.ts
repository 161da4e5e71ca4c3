import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createIdentityClient, mfaRequiredOf, type IdentityClient } from '../../app/.server/identity'
import { refreshRecaptcha } from '../../app/.server/identity/recaptcha'
import { RECAPTCHA_OFF, type RecaptchaConfig } from '../../app/.server/identity/schemas'
import { failure } from '../support/identity-errors'

/**
 * The client against a small real HTTP server that misbehaves on purpose: slow, failing,
 * malformed, hanging up. The client is pointed at it as if it were the emulator.
 */

interface Seen {
  method: string
  url: URL
  headers: http.IncomingHttpHeaders
  body: string
  /** The client's port: the same port means the same (kept-alive) connection. */
  port: number | undefined
}
type Handler = (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => void

let handler: Handler = (_req, res) => json(res, 200, {})
let seen: Seen[] = []
let server: http.Server
let origin: string
const clients: IdentityClient[] = []

/** The project's reCAPTCHA setting the client sends tokens by: enforced, unless a test says otherwise. */
const ENFORCED: RecaptchaConfig = { recaptchaKey: 'projects/p/keys/k', siteKey: 'k', emailPassword: 'ENFORCE', phone: 'ENFORCE' }
const projectSetting = (config: RecaptchaConfig) => refreshRecaptcha(async () => config)

beforeAll(async () => {
  await projectSetting(ENFORCED)
  server = http.createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        url: new URL(req.url ?? '/', 'http://x'),
        headers: req.headers,
        body,
        port: req.socket.remotePort,
      }
      seen.push(entry)
      handler(req, res, entry)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
  seen = []
  handler = (_req, res) => json(res, 200, {})
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

function client(overrides: { timeoutMs?: number; tenantId?: string | null; maxInFlight?: number } = {}) {
  const c = createIdentityClient({
    apiKey: 'fault-test-key',
    emulatorOrigin: origin,
    projectId: 'demo-faults',
    tenantId: overrides.tenantId ?? null,
    timeoutMs: overrides.timeoutMs ?? 2_000,
    maxInFlight: overrides.maxInFlight,
  })
  clients.push(c)
  return c
}

function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

const SIGN_IN = {
  idToken: 'a.b.c',
  refreshToken: 'refresh',
  expiresIn: '3600',
  localId: 'uid-1',
  email: 'a@example.com',
}
const PROJECT = { projectId: '123', authorizedDomains: ['localhost', 'auth.example.com'] }

describe('identity client faults', () => {
  it('gives up on a slow answer after the time-out: auth/network-request-failed', async () => {
    // Margins wide enough for a busy machine: the call ends at its 1 s time-out, long before the 6 s answer.
    handler = (_req, res) => setTimeout(() => json(res, 200, SIGN_IN), 6_000)
    const started = Date.now()
    const error = await failure(client({ timeoutMs: 1_000 }).signInWithPassword('a@example.com', 'pw'))
    const elapsed = Date.now() - started
    expect(error.code).toBe('auth/network-request-failed')
    expect(elapsed).toBeGreaterThanOrEqual(980)
    expect(elapsed).toBeLessThan(5_000)
    expect(seen).toHaveLength(1)
  })

  it('beyond maxInFlight calls waiting on a hung service, a call fails at once; the room frees as calls end', async () => {
    const held: Array<() => void> = []
    handler = (_req, res) => held.push(() => json(res, 200, SIGN_IN))
    const c = client({ maxInFlight: 2 })
    const first = c.signInWithPassword('a@example.com', 'pw')
    const second = c.signInWithPassword('b@example.com', 'pw')
    await expect.poll(() => held.length).toBe(2)
    const started = Date.now()
    const refused = await failure(c.signInWithPassword('c@example.com', 'pw'))
    expect(refused.code).toBe('auth/network-request-failed')
    // At once, not after the 2 s time-out (a bound with room for a busy machine).
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(seen).toHaveLength(2)
    for (const release of held.splice(0)) release()
    await expect(Promise.all([first, second])).resolves.toHaveLength(2)
    handler = (_req, res) => json(res, 200, SIGN_IN)
    await expect(c.signInWithPassword('c@example.com', 'pw')).resolves.toMatchObject({ localId: 'uid-1' })
  })

  it('bounded() work (firebase-admin) shares the in-flight bound and answers by the time-out', async () => {
    const held: Array<() => void> = []
    handler = (_req, res) => held.push(() => json(res, 200, SIGN_IN))
    const c = client({ maxInFlight: 2, timeoutMs: 300 })
    // Its failure is taken at once: on a busy machine it may come before the assertions below reach it.
    const call = failure(c.signInWithPassword('a@example.com', 'pw'))
    let release = () => undefined as void
    const admin = failure(c.bounded('verifySessionCookie', () => new Promise<void>((resolve) => (release = resolve))))
    await expect.poll(() => held.length).toBe(1)
    // Both slots are taken: a REST call and more admin work are refused at once.
    expect((await failure(c.signInWithPassword('b@example.com', 'pw'))).reason).toBe('TOO_MANY_CALLS_IN_FLIGHT')
    expect((await failure(c.bounded('verifySessionCookie', async () => 'x'))).reason).toBe('TOO_MANY_CALLS_IN_FLIGHT')
    const started = Date.now()
    expect((await admin).reason).toBe('TIMEOUT')
    expect(Date.now() - started).toBeLessThan(1_000)
    expect((await call).code).toBe('auth/network-request-failed')
    // Answered, but the admin work still runs: its slot stays taken until it ends, so one more fits, not two.
    let releaseOther = () => undefined as void
    const other = c.bounded('verifySessionCookie', () => new Promise<void>((resolve) => (releaseOther = resolve)))
    expect((await failure(c.bounded('verifySessionCookie', async () => 'x'))).reason).toBe('TOO_MANY_CALLS_IN_FLIGHT')
    release()
    releaseOther()
    await other
    await expect.poll(() => c.bounded('verifySessionCookie', async () => 'x').catch(() => 'refused')).toBe('x')
  })

  it('the time-out covers a read and its retry together', async () => {
    handler = (_req, res) => setTimeout(() => json(res, 200, PROJECT), 1_500)
    const started = Date.now()
    expect((await failure(client({ timeoutMs: 250 }).getProjectConfig())).code).toBe('auth/network-request-failed')
    expect(Date.now() - started).toBeLessThan(800)
  })

  it('retries a read once after a 503, and succeeds', async () => {
    handler = (_req, res) =>
      seen.length === 1 ? json(res, 503, { error: { code: 503, message: 'UNAVAILABLE' } }) : json(res, 200, PROJECT)
    expect(await client().getProjectConfig()).toEqual(PROJECT)
    expect(seen).toHaveLength(2)
    expect(seen.map((s) => s.method)).toEqual(['GET', 'GET'])
  })

  it.each([408, 409, 425, 429, 500, 502, 503, 504])(
    'retries a read (checkActionCode) once after a %i',
    async (status) => {
      handler = (_req, res) =>
        seen.length === 1
          ? json(res, status, {})
          : json(res, 200, { requestType: 'PASSWORD_RESET', email: 'a@example.com' })
      expect((await client().checkActionCode('code')).email).toBe('a@example.com')
      expect(seen).toHaveLength(2)
    },
  )

  it('retries a read only once', async () => {
    handler = (_req, res) => json(res, 503, {})
    const error = await failure(client().checkActionCode('code'))
    expect(error).toMatchObject({ code: 'auth/internal-error', status: 503 })
    expect(seen).toHaveLength(2)
  })

  it('does not retry a read after a 501 or a 400', async () => {
    handler = (_req, res) => json(res, 501, {})
    await failure(client().getProjectConfig())
    expect(seen).toHaveLength(1)
  })

  // A 5xx without an identity error body is auth/internal-error (error.unexpected): the service
  // failed, the network did not.
  it.each([
    ['signInWithPassword', (c: IdentityClient) => c.signInWithPassword('a@example.com', 'pw')],
    ['signUp', (c: IdentityClient) => c.signUp('a@example.com', 'pw')],
    ['resetPassword', (c: IdentityClient) => c.resetPassword('code', 'new-password')],
    ['sendOobCode', (c: IdentityClient) => c.sendOobCode({ requestType: 'PASSWORD_RESET', email: 'a@example.com' })],
    ['update', (c: IdentityClient) => c.update({ idToken: 'a.b.c', password: 'new-password' })],
    ['startMfaSignIn', (c: IdentityClient) => c.startMfaSignIn({ pendingCredential: 'P', enrollmentId: 'e1' })],
    ['signInWithEmailLink', (c: IdentityClient) => c.signInWithEmailLink('a@example.com', 'code')],
    ['signInWithIdp', (c: IdentityClient) => c.signInWithIdp({ requestUri: 'http://localhost/', postBody: 'x' })],
    [
      'finalizeMfaSignIn',
      (c: IdentityClient) => c.finalizeMfaSignIn('P', { kind: 'totp', enrollmentId: 'e1', code: '1' }),
    ],
  ])('does not retry a write (%s) after a 503: auth/internal-error', async (_name, run) => {
    handler = (_req, res) => json(res, 503, {})
    const error = await failure(run(client()))
    expect(error).toMatchObject({ code: 'auth/internal-error', status: 503 })
    expect(seen).toHaveLength(1)
  })

  it('maps a 400 identity error and does not retry it, even on a read', async () => {
    handler = (_req, res) =>
      json(res, 400, { error: { code: 400, message: 'INVALID_PASSWORD', errors: [{ message: 'INVALID_PASSWORD' }] } })
    const error = await failure(client().signInWithPassword('a@example.com', 'pw'))
    expect(error).toMatchObject({
      code: 'auth/wrong-password',
      status: 400,
      reason: 'INVALID_PASSWORD',
      message: 'auth/wrong-password',
    })
    expect(seen).toHaveLength(1)

    seen = []
    handler = (_req, res) => json(res, 400, { error: { code: 400, message: 'EXPIRED_OOB_CODE' } })
    expect((await failure(client().checkActionCode('code'))).code).toBe('auth/expired-action-code')
    expect(seen).toHaveLength(1)
  })

  it('takes the name before " : " in a message', async () => {
    handler = (_req, res) =>
      json(res, 400, {
        error: {
          code: 400,
          message: 'TOO_MANY_ATTEMPTS_TRY_LATER : Access to this account has been temporarily disabled.',
        },
      })
    expect((await failure(client().signInWithPassword('a@example.com', 'pw'))).code).toBe('auth/too-many-requests')
  })

  it("reads an invalid API key from the answer's ErrorInfo reason", async () => {
    handler = (_req, res) =>
      json(res, 400, {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'API_KEY_INVALID',
              domain: 'googleapis.com',
            },
          ],
        },
      })
    expect((await failure(client().signInWithPassword('a@example.com', 'pw'))).code).toBe('auth/invalid-api-key')
  })

  it('a 429 with no identity body, after its retry, is auth/too-many-requests', async () => {
    handler = (_req, res) =>
      json(res, 429, { error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } })
    expect((await failure(client().getProjectConfig())).code).toBe('auth/too-many-requests')
    expect(seen).toHaveLength(2)
  })

  it('a malformed JSON body is auth/internal-error', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"idToken": "a.b.c", ')
    }
    expect((await failure(client().signInWithPassword('a@example.com', 'pw'))).code).toBe('auth/internal-error')

    handler = (_req, res) => {
      res.writeHead(400, { 'content-type': 'text/html' })
      res.end('<html>Bad Request</html>')
    }
    expect((await failure(client().signInWithPassword('a@example.com', 'pw'))).code).toBe('auth/internal-error')
  })

  it('a success body of the wrong shape is auth/internal-error', async () => {
    handler = (_req, res) => json(res, 200, { idToken: 42, localId: null })
    expect((await failure(client().signInWithPassword('a@example.com', 'pw'))).code).toBe('auth/internal-error')
    handler = (_req, res) => json(res, 200, { authorizedDomains: 'localhost' })
    expect((await failure(client().getProjectConfig())).code).toBe('auth/internal-error')
    handler = (_req, res) => json(res, 200, { requestType: 'SOMETHING_ELSE', email: 'a@example.com' })
    expect((await failure(client().checkActionCode('code'))).code).toBe('auth/internal-error')
  })

  it('a 200 that says errorMessage, needConfirmation or mfaPendingCredential is an error', async () => {
    handler = (_req, res) => json(res, 200, { errorMessage: 'FEDERATED_USER_ID_ALREADY_LINKED' })
    expect((await failure(client().signInWithIdp({ requestUri: 'http://localhost/', postBody: 'x' }))).code).toBe(
      'auth/credential-already-in-use',
    )
    handler = (_req, res) => json(res, 200, { needConfirmation: true, email: 'a@example.com' })
    expect((await failure(client().signInWithIdp({ requestUri: 'http://localhost/', pendingToken: 'p' }))).code).toBe(
      'auth/account-exists-with-different-credential',
    )
    handler = (_req, res) => json(res, 200, { mfaPendingCredential: 'pending', mfaInfo: [], localId: 'uid-1' })
    expect((await failure(client().signInWithPassword('a@example.com', 'pw'))).code).toBe(
      'auth/multi-factor-auth-required',
    )
  })

  it('a pending second factor travels on the error with the factors it can offer, never in its JSON', async () => {
    handler = (_req, res) =>
      json(res, 200, {
        mfaPendingCredential: 'PENDING-SECRET',
        email: 'a@example.com',
        mfaInfo: [
          { mfaEnrollmentId: 'e1', displayName: 'Work', phoneInfo: '+*******0100', enrolledAt: '2026-01-01T00:00:00Z' },
          { mfaEnrollmentId: 'e2', totpInfo: {} },
          { mfaEnrollmentId: 'e3', passkeyInfo: {} },
          { displayName: 'no id', phoneInfo: '+*******0199' },
        ],
      })
    const error = await failure(client().signInWithPassword('a@example.com', 'pw'))
    expect(error.code).toBe('auth/multi-factor-auth-required')
    expect(mfaRequiredOf(error)).toEqual({
      pendingCredential: 'PENDING-SECRET',
      email: 'a@example.com',
      factors: [
        { kind: 'phone', id: 'e1', displayName: 'Work', phone: '+*******0100' },
        { kind: 'totp', id: 'e2', displayName: null },
      ],
    })
    expect(JSON.stringify(error)).not.toContain('PENDING-SECRET')
    expect(String(error)).not.toContain('PENDING-SECRET')
  })

  it('mfaSignIn:start and :finalize send what the service expects, and read its answers', async () => {
    handler = (req, res) =>
      req.url?.includes('mfaSignIn:start')
        ? json(res, 200, { phoneResponseInfo: { sessionInfo: 'SESSION-1' } })
        : json(res, 200, { idToken: 'ID', refreshToken: 'REFRESH' })
    const c = client()
    expect(await c.startMfaSignIn({ pendingCredential: 'P', enrollmentId: 'e1' })).toEqual({ sessionInfo: 'SESSION-1' })
    await c.startMfaSignIn({ pendingCredential: 'P', enrollmentId: 'e1', captchaResponse: 'TOKEN' })
    expect(await c.finalizeMfaSignIn('P', { kind: 'phone', sessionInfo: 'SESSION-1', code: '123456' })).toEqual({
      idToken: 'ID',
      refreshToken: 'REFRESH',
    })
    await c.finalizeMfaSignIn('P', { kind: 'totp', enrollmentId: 'e2', code: '654321' })
    expect(seen.map((s) => s.url.pathname)).toEqual([
      '/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:start',
      '/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:start',
      '/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize',
      '/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize',
    ])
    expect(seen.map((s) => JSON.parse(s.body) as unknown)).toEqual([
      { mfaPendingCredential: 'P', mfaEnrollmentId: 'e1', phoneSignInInfo: {} },
      {
        mfaPendingCredential: 'P',
        mfaEnrollmentId: 'e1',
        phoneSignInInfo: {
          captchaResponse: 'TOKEN',
          clientType: 'CLIENT_TYPE_WEB',
          recaptchaVersion: 'RECAPTCHA_ENTERPRISE',
        },
      },
      { mfaPendingCredential: 'P', phoneVerificationInfo: { sessionInfo: 'SESSION-1', code: '123456' } },
      { mfaPendingCredential: 'P', mfaEnrollmentId: 'e2', totpVerificationInfo: { verificationCode: '654321' } },
    ])
    // A wrong code is a verdict, not a failure of the service; a finalize is never sent twice.
    seen = []
    handler = (_req, res) => json(res, 400, { error: { code: 400, message: 'INVALID_CODE' } })
    expect((await failure(c.finalizeMfaSignIn('P', { kind: 'totp', enrollmentId: 'e2', code: '000000' }))).code).toBe(
      'auth/invalid-verification-code',
    )
    expect(seen).toHaveLength(1)
  })

  it('a closed connection is auth/network-request-failed; a write is not sent again', async () => {
    handler = (req) => req.socket.destroy()
    expect((await failure(client().signInWithPassword('a@example.com', 'pw'))).code).toBe('auth/network-request-failed')
    expect(seen).toHaveLength(1)
  })

  it('a closed connection on a read is tried once more', async () => {
    handler = (req, res) => (seen.length === 1 ? req.socket.destroy() : json(res, 200, PROJECT))
    expect(await client().getProjectConfig()).toEqual(PROJECT)
    expect(seen).toHaveLength(2)
  })

  it('a refused connection is auth/network-request-failed', async () => {
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const c = createIdentityClient({
      apiKey: 'k',
      emulatorOrigin: `http://127.0.0.1:${port}`,
      projectId: 'p',
      tenantId: null,
      timeoutMs: 2_000,
    })
    clients.push(c)
    expect((await failure(c.signInWithPassword('a@example.com', 'pw'))).code).toBe('auth/network-request-failed')
    expect((await failure(c.getProjectConfig())).code).toBe('auth/network-request-failed')
  })

  it('sends the key, the path under the host name, the body and the headers', async () => {
    handler = (_req, res) => json(res, 200, SIGN_IN)
    const result = await client().signInWithPassword('a@example.com', 'pw', { captchaResponse: 'captcha-token' })
    expect(result).toEqual({ ...SIGN_IN, expiresIn: 3600 })
    const [request] = seen
    expect(request?.method).toBe('POST')
    expect(request?.url.pathname).toBe('/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword')
    expect(request?.url.searchParams.get('key')).toBe('fault-test-key')
    expect(request?.headers['content-type']).toBe('application/json')
    expect(JSON.parse(request?.body ?? '')).toEqual({
      email: 'a@example.com',
      password: 'pw',
      returnSecureToken: true,
      clientType: 'CLIENT_TYPE_WEB',
      captchaResponse: 'captcha-token',
      recaptchaVersion: 'RECAPTCHA_ENTERPRISE',
    })
  })

  it('sends the locale as X-Firebase-Locale and the tenant in the body', async () => {
    const c = client({ tenantId: 'tenant-42' })
    await c.sendOobCode({
      requestType: 'PASSWORD_RESET',
      email: 'a@example.com',
      continueUrl: 'http://localhost:3000/',
      locale: 'fr',
      captchaResponse: 'captcha-token',
    })
    const [request] = seen
    expect(request?.url.pathname).toBe('/identitytoolkit.googleapis.com/v1/accounts:sendOobCode')
    expect(request?.url.searchParams.get('key')).toBe('fault-test-key')
    expect(request?.headers['x-firebase-locale']).toBe('fr')
    expect(JSON.parse(request?.body ?? '')).toEqual({
      requestType: 'PASSWORD_RESET',
      email: 'a@example.com',
      continueUrl: 'http://localhost:3000/',
      clientType: 'CLIENT_TYPE_WEB',
      captchaResp: 'captcha-token',
      recaptchaVersion: 'RECAPTCHA_ENTERPRISE',
      tenantId: 'tenant-42',
    })

    seen = []
    handler = (_req, res) => json(res, 200, SIGN_IN)
    await c.signInWithPassword('a@example.com', 'pw')
    expect(JSON.parse(seen[0]?.body ?? '')).toMatchObject({ tenantId: 'tenant-42' })
    expect(JSON.parse(seen[0]?.body ?? '')).not.toHaveProperty('captchaResponse')
  })

  it("sends no reCAPTCHA token while the project's setting is OFF, as Firebase's SDK does", async () => {
    await projectSetting(RECAPTCHA_OFF)
    try {
      handler = (_req, res) => json(res, 200, SIGN_IN)
      await client().signInWithPassword('a@example.com', 'pw', { captchaResponse: 'captcha-token' })
      await client().sendOobCode({ requestType: 'PASSWORD_RESET', email: 'a@example.com', captchaResponse: 'captcha-token' })
      expect(seen.map((request) => request.body).join()).not.toContain('captcha-token')
      expect(seen).toHaveLength(2)
    } finally {
      await projectSetting(ENFORCED)
    }
  })

  it('sends no locale header when none is given or it is not a language tag', async () => {
    await client().sendOobCode({ requestType: 'PASSWORD_RESET', email: 'a@example.com' })
    await client().sendOobCode({ requestType: 'PASSWORD_RESET', email: 'a@example.com', locale: 'fr\r\nX-Evil: 1' })
    expect(seen.map((s) => s.headers['x-firebase-locale'])).toEqual([undefined, undefined])
    expect(seen.map((s) => s.headers['x-evil'])).toEqual([undefined, undefined])
  })

  it('sends no tenantId when none is configured', async () => {
    await client().sendOobCode({ requestType: 'VERIFY_EMAIL', idToken: 'a.b.c' })
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ requestType: 'VERIFY_EMAIL', idToken: 'a.b.c' })
  })

  it('reads the project config and the reCAPTCHA config with GET', async () => {
    handler = (req, res) =>
      req.url?.includes('recaptchaConfig')
        ? json(res, 200, {
            recaptchaKey: 'projects/p/keys/site-key-1',
            recaptchaEnforcementState: [
              { provider: 'EMAIL_PASSWORD_PROVIDER', enforcementState: 'ENFORCE' },
              { provider: 'PHONE_PROVIDER', enforcementState: 'AUDIT' },
            ],
          })
        : json(res, 200, PROJECT)
    const c = client({ tenantId: 'tenant-42' })
    expect(await c.getProjectConfig()).toEqual(PROJECT)
    expect(await c.getRecaptchaConfig()).toEqual({
      recaptchaKey: 'projects/p/keys/site-key-1',
      siteKey: 'site-key-1',
      emailPassword: 'ENFORCE',
      phone: 'AUDIT',
    })
    expect(seen.map((s) => [s.method, s.url.pathname])).toEqual([
      ['GET', '/identitytoolkit.googleapis.com/v1/projects'],
      ['GET', '/identitytoolkit.googleapis.com/v2/recaptchaConfig'],
    ])
    expect(Object.fromEntries(seen[1]!.url.searchParams)).toEqual({
      clientType: 'CLIENT_TYPE_WEB',
      version: 'RECAPTCHA_ENTERPRISE',
      tenantId: 'tenant-42',
      key: 'fault-test-key',
    })
  })

  it('keeps connections alive: calls in sequence reuse them', async () => {
    const c = client()
    for (let i = 0; i < 6; i++) await c.sendOobCode({ requestType: 'VERIFY_EMAIL', idToken: 'a.b.c' })
    expect(seen).toHaveLength(6)
    // undici's pool may open a second connection while the first is being released, not six.
    expect(new Set(seen.map((s) => s.port)).size).toBeLessThanOrEqual(2)
  })
})
