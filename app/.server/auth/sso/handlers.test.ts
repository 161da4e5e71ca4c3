import { beforeEach, describe, expect, it, vi } from 'vitest'
import type * as configModule from '~/.server/config'
import type { AppLoadContext } from '~/.server/context'
import { IdentityError } from '~/.server/identity'
import { cookieHeader } from '../../../../tests/support/cookie-jar'
import type { SsoFinish, SsoState } from './protocol'

/**
 * Single sign-on's start and callback, through the real sealed state cookie: the provider's protocol, the
 * session, the second-factor step and "Confirm it's you" are stubbed.
 */

const stubs = vi.hoisted(() => ({
  sso: true,
  beginSso: vi.fn(),
  finishSso: vi.fn(),
  handleNewSession: vi.fn(),
  getSession: vi.fn(),
  beginSecondFactor: vi.fn(async () => ({ setCookies: ['mfa_pending=1'], location: '/second-factor' })),
  afterConfirmation: vi.fn(),
}))
vi.mock('~/.server/config', async (importOriginal) => {
  const actual = await importOriginal<typeof configModule>()
  return { ...actual, getConfig: () => ({ ...actual.getConfig(), ssoProviderId: 'google.com', ssoProviderName: 'Google' }) }
})
vi.mock('~/.server/ops/flags', () => ({ getFlags: async () => ({ sso: stubs.sso }) }))
vi.mock('~/.server/identity', async (original) => ({
  ...(await original<object>()),
  getIdentity: () => ({ getProjectConfig: async () => ({ authorizedDomains: [] }) }),
}))
vi.mock('./protocol', async (original) => ({ ...(await original<object>()), beginSso: stubs.beginSso, finishSso: stubs.finishSso }))
vi.mock('../session', async (original) => ({
  ...(await original<object>()),
  handleNewSession: stubs.handleNewSession,
  getSession: stubs.getSession,
}))
vi.mock('../second-factor', () => ({ beginSecondFactor: stubs.beginSecondFactor }))
vi.mock('../recent-login', async (original) => ({ ...(await original<object>()), afterConfirmation: stubs.afterConfirmation }))
const { handleSsoCallback, startSso } = await import('./handlers')
const { stateCookie } = await import('./state-cookie')

const ORIGIN = 'http://localhost:3000'
const context = { clientIp: '203.0.113.9', requestId: 'test', publicOrigin: ORIGIN } as AppLoadContext
const STATE: SsoState = { sessionId: 's', callbackOrigin: ORIGIN, nonce: 'n', redirect: '/account', remember: true, confirm: null }
const CONFIRM = { uid: 'uid-1', next: '/account/password', then: null }
/** An ID token's payload is all the callback reads of it (the service just issued it). */
const idTokenOf = (uid: string) => `h.${Buffer.from(JSON.stringify({ sub: uid })).toString('base64url')}.s`

/** The browser's cookie once the start has written the state. */
const withState = (state: SsoState) => cookieHeader(stateCookie.write(new Request(`${ORIGIN}/sso/start`), state))
const callback = (cookie = '', init: { method?: string; host?: string; body?: string; query?: string } = {}) =>
  new Request(`${ORIGIN}/sso/callback${init.query ?? '?code=c'}`, {
    method: init.method ?? 'GET',
    headers: { Cookie: cookie, host: init.host ?? 'localhost:3000', 'content-type': 'application/x-www-form-urlencoded' },
    body: init.body,
  })
const finishing = (finish: SsoFinish) => stubs.finishSso.mockResolvedValueOnce(finish)
const CLEARED = expect.stringMatching(/Max-Age=0/)

beforeEach(() => {
  vi.clearAllMocks()
  stubs.sso = true
})

describe('the start', () => {
  const start = (input: Partial<Parameters<typeof startSso>[1]> = {}) =>
    startSso(new Request(`${ORIGIN}/sso/start`, { method: 'POST' }), {
      redirect: { param: '/account', url: `${ORIGIN}/account` },
      authDomain: null,
      remember: false,
      confirm: null,
      ...input,
    }, context)

  it('hands the browser a page that moves on to the provider, the state sealed in its cookie', async () => {
    stubs.beginSso.mockImplementationOnce(async (intent: object) => ({ authUri: 'https://provider.example/auth', state: { ...STATE, ...intent } }))
    const answer = await start()
    expect(answer).toMatchObject({ kind: 'page', data: { authUri: 'https://provider.example/auth' }, refresh: 'https://provider.example/auth' })
    expect(stubs.beginSso.mock.calls[0]![0]).toEqual({ redirect: '/account', callbackOrigin: ORIGIN, remember: false, confirm: null })
    const cookie = cookieHeader(answer.cookies ?? [])
    expect(stateCookie.read(callback(cookie))).toMatchObject({ redirect: '/account', nonce: 'n' })
  })

  it('with the flag off, goes back to sign in saying it is unavailable, the redirect kept', async () => {
    stubs.sso = false
    expect(await start()).toEqual({ kind: 'redirect', location: '/?ssoError=unavailable&redirect=%2Faccount' })
    expect(stubs.beginSso).not.toHaveBeenCalled()
  })

  it('says the provider failed, or the service is unreachable; from "Confirm it\'s you", back there', async () => {
    stubs.beginSso.mockRejectedValueOnce(new IdentityError('auth/operation-not-allowed', 400))
    expect(await start()).toMatchObject({ location: '/?ssoError=provider&redirect=%2Faccount' })
    stubs.beginSso.mockRejectedValueOnce(new IdentityError('auth/network-request-failed'))
    expect(await start({ confirm: CONFIRM })).toMatchObject({ location: '/account/confirm?next=%2Faccount%2Fpassword&ssoError=unavailable' })
  })
})

describe('the callback', () => {
  it('at the authDomain host without the state cookie, hands over to the public origin once', async () => {
    const relayed = await handleSsoCallback(callback('', { host: 'auth.example.com' }), context)
    expect(relayed).toEqual({ kind: 'redirect', location: `${ORIGIN}/sso/callback?code=c&portal_relay=1`, status: 303 })
    const posted = await handleSsoCallback(callback('', { host: 'auth.example.com', method: 'POST', body: 'id_token=t' }), context)
    expect(posted).toMatchObject({ status: 307 })
    // Already relayed: no second hand-over, and without a state the sign-in is cancelled.
    finishing({ ok: false, error: 'cancelled' })
    const again = await handleSsoCallback(callback('', { host: 'auth.example.com', query: '?code=c&portal_relay=1' }), context)
    expect(again).toMatchObject({ kind: 'redirect', location: '/?ssoError=cancelled' })
  })

  it("a provider's cross-site post, without the Lax cookie, is posted again by our own page, once", async () => {
    const answer = await handleSsoCallback(callback('', { method: 'POST', body: 'id_token=t&state=x' }), context)
    expect(answer).toEqual({ kind: 'repost', action: '/sso/callback?code=c&portal_repost=1', fields: [['id_token', 't'], ['state', 'x']] })
    expect(stubs.finishSso).not.toHaveBeenCalled()
  })

  it('signs in with the state kept: its redirect checked again, "Keep me signed in", the state cleared', async () => {
    finishing({ ok: true, idToken: 'token', email: 'ada@example.com' })
    stubs.handleNewSession.mockResolvedValueOnce({ setCookies: ['session=1'], location: `${ORIGIN}/account` })
    const answer = await handleSsoCallback(callback(withState(STATE)), context)
    expect(answer).toEqual({ kind: 'redirect', location: `${ORIGIN}/account`, cookies: ['session=1', CLEARED] })
    expect(stubs.handleNewSession).toHaveBeenCalledWith(
      'token',
      { email: 'ada@example.com', method: 'sso', redirect: { param: '/account', url: `${ORIGIN}/account` }, remember: true },
      context,
    )
  })

  it('a refusal goes back to sign in with its reason and the redirect, the state cleared', async () => {
    finishing({ ok: false, error: 'provider', code: 'auth/invalid-credential' })
    expect(await handleSsoCallback(callback(withState(STATE)), context)).toEqual({
      kind: 'redirect',
      location: '/?ssoError=provider&redirect=%2Faccount',
      cookies: [CLEARED],
    })
    expect(stubs.handleNewSession).not.toHaveBeenCalled()
  })

  it('an account with a second factor goes to the code step', async () => {
    const mfa = { pendingCredential: 'p', factors: [{ kind: 'totp' as const, id: 't', displayName: null }], email: null }
    finishing({ ok: true, mfa, email: 'ada@example.com' })
    expect(await handleSsoCallback(callback(withState(STATE)), context)).toMatchObject({ location: '/second-factor', cookies: ['mfa_pending=1', CLEARED] })
    expect(stubs.beginSecondFactor).toHaveBeenCalledWith(
      expect.any(Request),
      { mfa, method: 'sso', email: 'ada@example.com', redirect: { param: '/account', url: `${ORIGIN}/account` }, remember: true },
      context,
    )
  })

  it('no session to be had is said as unavailable', async () => {
    finishing({ ok: true, idToken: 'token', email: null })
    stubs.handleNewSession.mockRejectedValueOnce(new IdentityError('auth/network-request-failed'))
    expect(await handleSsoCallback(callback(withState(STATE)), context)).toMatchObject({ location: '/?ssoError=unavailable&redirect=%2Faccount' })
  })
})

describe('"Confirm it\'s you" through the provider', () => {
  const confirming = { ...STATE, redirect: null, confirm: CONFIRM }
  const signedInAs = (uid: string) =>
    stubs.getSession.mockResolvedValueOnce({ status: 'signed-in', user: { uid, email: 'ada@example.com', remembered: false } })

  it('the same account confirms, and the action it protects goes on', async () => {
    signedInAs('uid-1')
    finishing({ ok: true, idToken: idTokenOf('uid-1'), email: 'ada@example.com' })
    stubs.afterConfirmation.mockResolvedValueOnce({ setCookies: ['recent=1'], location: '/account/password' })
    expect(await handleSsoCallback(callback(withState(confirming)), context)).toEqual({
      kind: 'redirect',
      location: '/account/password',
      cookies: ['recent=1', CLEARED],
    })
    expect(stubs.handleNewSession).not.toHaveBeenCalled()
  })

  it("another account of the provider is refused, and the visitor stays who they are", async () => {
    signedInAs('uid-1')
    finishing({ ok: true, idToken: idTokenOf('someone-else'), email: 'eve@example.com' })
    expect(await handleSsoCallback(callback(withState(confirming)), context)).toMatchObject({
      location: '/account/confirm?next=%2Faccount%2Fpassword&ssoError=mismatch',
    })
    expect(stubs.afterConfirmation).not.toHaveBeenCalled()
  })

  it('signed out (or someone else) since the start: back to "Confirm it\'s you", nothing confirmed', async () => {
    stubs.getSession.mockResolvedValueOnce({ status: 'anonymous' })
    finishing({ ok: true, idToken: idTokenOf('uid-1'), email: 'ada@example.com' })
    expect(await handleSsoCallback(callback(withState(confirming)), context)).toMatchObject({
      location: '/account/confirm?next=%2Faccount%2Fpassword',
    })
    expect(stubs.afterConfirmation).not.toHaveBeenCalled()
  })
})
