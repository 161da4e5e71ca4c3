import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { createIdentityClient, type IdentityClient } from '../../app/.server/identity'
import { beginSso, callbackOriginFor, finishSso, type SsoSettings, type SsoState } from '../../app/.server/auth/sso/protocol'

/**
 * The production single-sign-on calls, which the Auth emulator does not implement for providers
 * (createAuthUri answers 501 there): the server flow against a loopback Identity Toolkit that
 * answers createAuthUri and signInWithIdp as Google's does.
 */

// Before any import reads the configuration: the emulator's authorizedDomains (localhost) and
// one allowed origin, for the authDomain cases at the end.
vi.hoisted(() => {
  process.env.FIREBASE_AUTH_EMULATOR_HOST = inject('emulator').host
  process.env.FIREBASE_PROJECT_ID = inject('emulator').projectId
  process.env.REDIRECT_ALLOWED_ORIGINS = 'http://127.0.0.1:5555'
})

const PUBLIC_ORIGIN = 'https://login.example.com'
const AUTH_URI =
  'https://accounts.provider.example/o/oauth2/auth?client_id=abc&state=opaque-state&redirect_uri=https%3A%2F%2Flogin.example.com%2Fsso%2Fcallback'

interface Seen {
  path: string
  body: Record<string, unknown>
}
type Reply = { status: number; body: unknown }

let seen: Seen[] = []
let replies: Record<string, Reply> = {}
let server: http.Server
let origin: string
let client: IdentityClient

const DEFAULT_REPLIES: Record<string, Reply> = {
  '/v1/accounts:createAuthUri': {
    status: 200,
    body: {
      authUri: AUTH_URI,
      sessionId: 'session-from-service',
      providerId: 'oidc.corp',
    },
  },
  '/v1/accounts:signInWithIdp': {
    status: 200,
    body: {
      idToken: 'id-token',
      refreshToken: 'refresh-token',
      expiresIn: '3600',
      localId: 'uid-1',
      email: 'person@corp.example',
      providerId: 'oidc.corp',
    },
  },
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let text = ''
    req.on('data', (chunk: Buffer) => (text += chunk.toString()))
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname.replace('/identitytoolkit.googleapis.com', '')
      seen.push({ path, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} })
      const reply = replies[path] ?? DEFAULT_REPLIES[path] ?? { status: 404, body: { error: { message: 'NOT_FOUND' } } }
      res.writeHead(reply.status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(reply.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  client = createIdentityClient({
    apiKey: 'loopback-key',
    emulatorOrigin: origin,
    projectId: 'demo-sso',
    tenantId: null,
    timeoutMs: 2_000,
    onCall: () => {},
  })
})

afterEach(() => {
  seen = []
  replies = {}
})

afterAll(async () => {
  await client.close()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

/** Production mode: no emulator page, the calls go to the loopback service. */
const settings = (): SsoSettings => ({ identity: client, providerId: 'oidc.corp', emulator: null })

const state = (overrides: Partial<SsoState> = {}): SsoState => ({
  sessionId: 'session-from-service',
  redirect: null,
  callbackOrigin: PUBLIC_ORIGIN,
  nonce: 'n',
  remember: false,
  confirm: null,
  ...overrides,
})

/** A sign-in's start: no redirect, the public origin, neither "Keep me signed in" nor a confirmation. */
const plain = { redirect: null, callbackOrigin: PUBLIC_ORIGIN, remember: false, confirm: null }

describe('starting single sign-on (createAuthUri)', () => {
  it('asks for the provider page with our callback, and keeps the sessionId and redirect', async () => {
    const { authUri, state } = await beginSso({ ...plain, redirect: '/after' }, settings())
    expect(seen).toEqual([
      {
        path: '/v1/accounts:createAuthUri',
        body: { providerId: 'oidc.corp', continueUri: `${PUBLIC_ORIGIN}/sso/callback` },
      },
    ])
    expect(authUri).toBe(AUTH_URI)
    expect(state).toMatchObject({
      sessionId: 'session-from-service',
      redirect: '/after',
      callbackOrigin: PUBLIC_ORIGIN,
    })
  })

  it('puts the callback on the authDomain host when one was accepted', async () => {
    await beginSso({ ...plain, callbackOrigin: 'https://auth.example.com' }, settings())
    expect(seen[0]?.body.continueUri).toBe('https://auth.example.com/sso/callback')
  })

  it('refuses an answer without a sessionId, or whose authUri is not https', async () => {
    replies['/v1/accounts:createAuthUri'] = { status: 200, body: { authUri: 'https://idp.example/auth' } }
    await expect(beginSso(plain, settings())).rejects.toThrow()
    replies['/v1/accounts:createAuthUri'] = { status: 200, body: { authUri: 'javascript:alert(1)', sessionId: 's' } }
    await expect(beginSso(plain, settings())).rejects.toThrow()
  })

  it('passes on a service refusal (an unknown provider) as an IdentityError', async () => {
    replies['/v1/accounts:createAuthUri'] = { status: 400, body: { error: { message: 'OPERATION_NOT_ALLOWED' } } }
    await expect(beginSso(plain, settings())).rejects.toMatchObject({
      code: 'auth/operation-not-allowed',
    })
  })
})

describe('the callback (signInWithIdp)', () => {
  const query = (q: string) => new URLSearchParams(q)

  it('sends the full callback URL as requestUri with the sessionId, and answers the ID token', async () => {
    const finish = await finishSso(
      { search: query('code=4%2Fabc&state=opaque-state'), postBody: null, state: state() },
      settings(),
    )
    expect(finish).toEqual({ ok: true, idToken: 'id-token', email: 'person@corp.example' })
    expect(seen).toEqual([
      {
        path: '/v1/accounts:signInWithIdp',
        body: {
          requestUri: `${PUBLIC_ORIGIN}/sso/callback?code=4%2Fabc&state=opaque-state`,
          sessionId: 'session-from-service',
          returnSecureToken: true,
          returnIdpCredential: true,
        },
      },
    ])
  })

  it('uses the authDomain origin the flow started with, without the relay marker', async () => {
    await finishSso(
      {
        search: query('code=c&state=s&portal_relay=1'),
        postBody: null,
        state: state({ callbackOrigin: 'https://auth.example.com' }),
      },
      settings(),
    )
    expect(seen[0]?.body.requestUri).toBe('https://auth.example.com/sso/callback?code=c&state=s')
  })

  it('hands a form_post answer over as postBody', async () => {
    await finishSso({ search: query(''), postBody: 'code=c&state=s', state: state() }, settings())
    expect(seen[0]?.body).toMatchObject({ requestUri: `${PUBLIC_ORIGIN}/sso/callback`, postBody: 'code=c&state=s' })
  })

  it('without the state cookie, or when the provider refused, calls nothing', async () => {
    expect(await finishSso({ search: query('code=c'), postBody: null, state: null }, settings())).toEqual({
      ok: false,
      error: 'cancelled',
    })
    expect(
      await finishSso({ search: query('error=access_denied'), postBody: null, state: state() }, settings()),
    ).toEqual({
      ok: false,
      error: 'cancelled',
    })
    expect(await finishSso({ search: query(''), postBody: 'error=server_error', state: state() }, settings())).toEqual({
      ok: false,
      error: 'provider',
    })
    expect(seen).toEqual([])
  })

  it.each([
    [
      'an account with another sign-in method',
      { status: 200, body: { needConfirmation: true, email: 'a@b.c' } },
      'account-exists',
    ],
    ['a disabled account', { status: 400, body: { error: { message: 'USER_DISABLED' } } }, 'disabled'],
    [
      'an invalid provider answer',
      { status: 400, body: { error: { message: 'INVALID_IDP_RESPONSE : bad code' } } },
      'provider',
    ],
    [
      'a linked credential',
      { status: 400, body: { error: { message: 'FEDERATED_USER_ID_ALREADY_LINKED' } } },
      'account-exists',
    ],
    ['a service failure', { status: 503, body: { error: { message: 'UNAVAILABLE' } } }, 'unavailable'],
  ] as const)('explains %s', async (_name, reply, error) => {
    replies['/v1/accounts:signInWithIdp'] = reply
    const finish = await finishSso({ search: query('code=c&state=s'), postBody: null, state: state() }, settings())
    expect(finish).toMatchObject({ ok: false, error })
  })
})

describe('the authDomain override: a host the redirect policy accepts, else the public origin', () => {
  it.each([
    [null, 'http://localhost:3000'],
    ['localhost:4000', 'http://localhost:4000'],
    ['127.0.0.1:5555', 'http://127.0.0.1:5555'],
    ['LOCALHOST:4000', 'http://localhost:4000'],
    ['evil.example', 'http://localhost:3000'],
    ['127.0.0.1:6666', 'http://localhost:3000'],
    ['evil.example/path', 'http://localhost:3000'],
    ['user@evil.example', 'http://localhost:3000'],
    ['evil.example:99999', 'http://localhost:3000'],
  ])('%s → %s', async (authDomain, expected) => {
    expect(await callbackOriginFor(authDomain, 'http://localhost:3000')).toBe(expected)
  })
})
