import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'
import { IdentityError } from '~/.server/identity'
import { pendingCookie, type Pending } from './pending'

/** The second-factor step's code check, with the identity service, the limit and the session stubbed. */

const stubs = vi.hoisted(() => ({
  finalizeMfaSignIn: vi.fn(async (_credential: string, _factor: object) => ({ idToken: 'second-factor-token' })),
  consumeMfaCode: vi.fn(),
  release: vi.fn(async (_outcome: string) => {}),
  handleNewSession: vi.fn(async (_idToken: string, _input: object, _context: object) => ({
    setCookies: ['session=1'],
    location: 'https://app.example/home',
  })),
  afterConfirmation: vi.fn(async (): Promise<{ location: string; setCookies: string[] } | null> => ({
    location: '/account/password',
    setCookies: ['recent=1'],
  })),
}))
vi.mock('~/.server/identity', async (original) => ({
  ...(await original<object>()),
  // The project's authorizedDomains, which the redirect policy reads.
  getIdentity: () => ({ finalizeMfaSignIn: stubs.finalizeMfaSignIn, getProjectConfig: async () => ({ authorizedDomains: ['app.example'] }) }),
}))
vi.mock('~/.server/policy/rate-limit', async (original) => ({
  ...(await original<object>()),
  getRateLimits: () => ({ consumeMfaCode: stubs.consumeMfaCode }),
}))
vi.mock('~/.server/auth/session', async (original) => ({ ...(await original<object>()), handleNewSession: stubs.handleNewSession }))
vi.mock('~/.server/auth/recent-login', async (original) => ({
  ...(await original<object>()),
  afterConfirmation: stubs.afterConfirmation,
}))
const { verify } = await import('./verify')

const context = { clientIp: '203.0.113.9', requestId: 'test', publicOrigin: 'http://localhost:3000' } as AppLoadContext
const CLEARED = pendingCookie.clear()
const pending = (changes: Partial<Pending> = {}): Pending => ({
  id: 'pending-1',
  credential: 'pending-credential',
  factors: [
    { kind: 'totp', id: 'totp-1', displayName: null },
    { kind: 'phone', id: 'phone-1', displayName: null, phone: '+33*******78' },
  ],
  method: 'password',
  email: 'ada@example.com',
  redirect: null,
  remember: true,
  confirm: null,
  chosen: 'totp-1',
  session: null,
  sentAt: null,
  captcha: false,
  notice: null,
  retryAt: null,
  expires: Math.floor(Date.now() / 1000) + 300,
  ...changes,
})
const check = (p: Pending, typed = '123456') =>
  verify(new Request('http://localhost:3000/second-factor', { method: 'POST' }), p, typed, context)
const refusedWith = (code: string, status = 400) =>
  stubs.finalizeMfaSignIn.mockRejectedValue(new IdentityError(code as IdentityError['code'], status))

describe('the second-factor code check', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    stubs.consumeMfaCode.mockResolvedValue({ ok: true, release: stubs.release })
    stubs.finalizeMfaSignIn.mockResolvedValue({ idToken: 'second-factor-token' })
  })

  it('goes back to the choice without a chosen factor, and refuses a malformed code, counting nothing', async () => {
    expect(await check(pending({ chosen: null }))).toMatchObject({ kind: 'redirect', location: '/second-factor' })
    expect(await check(pending(), '12345')).toMatchObject({ kind: 'page', status: 400, data: { message: 'mfa.codeFormat' } })
    const phone = pending({ chosen: 'phone-1', session: null })
    expect(await check(phone)).toMatchObject({ kind: 'page', status: 400, data: { message: 'mfa.sendFailed' } })
    expect(stubs.consumeMfaCode).not.toHaveBeenCalled()
  })

  it('answers 429 over the limit, saying when, without asking the service', async () => {
    stubs.consumeMfaCode.mockResolvedValue({ ok: false, retryAfterSeconds: 60 })
    const limited = await check(pending())
    expect(limited).toMatchObject({ kind: 'page', status: 429, retryAfter: 60, data: { message: 'error.tooManyRequestsAt' } })
    expect(limited.kind === 'page' && limited.data.retryAt).toBeGreaterThan(Date.now())
    expect(stubs.finalizeMfaSignIn).not.toHaveBeenCalled()
  })

  it('signs in with a code typed with spaces or dashes, the step ended and the attempt released as a success', async () => {
    const done = await check(pending({ redirect: '/account' }), '123 45-6')
    expect(stubs.finalizeMfaSignIn).toHaveBeenCalledWith('pending-credential', { kind: 'totp', enrollmentId: 'totp-1', code: '123456' })
    expect(done).toEqual({ kind: 'redirect', location: 'https://app.example/home', cookies: ['session=1', CLEARED] })
    expect(stubs.handleNewSession).toHaveBeenCalledWith(
      'second-factor-token',
      expect.objectContaining({ email: 'ada@example.com', method: 'password', remember: true, secondFactor: 'totp' }),
      context,
    )
    expect(stubs.release.mock.calls).toEqual([['success']])
    expect(stubs.handleNewSession.mock.calls[0]![1]).toMatchObject({ redirect: { url: 'http://localhost:3000/account' } })
  })

  it('checks the redirect from the cookie again: one to another site is dropped', async () => {
    await check(pending({ redirect: 'https://evil.example/' }))
    expect(stubs.handleNewSession).toHaveBeenCalledWith('second-factor-token', expect.objectContaining({ redirect: null }), context)
  })

  it('sends an SMS code with its session', async () => {
    await check(pending({ chosen: 'phone-1', session: 'sms-session' }))
    expect(stubs.finalizeMfaSignIn).toHaveBeenCalledWith('pending-credential', { kind: 'phone', sessionInfo: 'sms-session', code: '123456' })
    expect(stubs.handleNewSession).toHaveBeenCalledWith('second-factor-token', expect.objectContaining({ secondFactor: 'phone' }), context)
  })

  it('keeps the step on a wrong code (400), counted as a failure', async () => {
    refusedWith('auth/invalid-verification-code')
    const wrong = await check(pending())
    expect(wrong).toMatchObject({ kind: 'page', status: 400, data: { message: 'mfa.wrongCode' } })
    expect(wrong.cookies).toBeUndefined()
    expect(stubs.release.mock.calls).toEqual([['failure']])
  })

  it('ends the step on an expired or invalid sign-in, back to the form with the address', async () => {
    for (const [code, reason] of [
      ['auth/code-expired', 'expired'],
      ['auth/user-disabled', 'invalid'],
    ] as const) {
      refusedWith(code)
      expect(await check(pending())).toEqual({
        kind: 'redirect',
        location: `/?mfaError=${reason}&email=ada%40example.com`,
        cookies: [CLEARED],
      })
    }
    expect(stubs.release.mock.calls).toEqual([['failure'], ['failure']])
  })

  it('ends the step as expired when the session cannot be made after a right code', async () => {
    stubs.handleNewSession.mockRejectedValueOnce(new Error('the ID token does not come from a second factor'))
    expect(await check(pending())).toMatchObject({ kind: 'redirect', location: '/?mfaError=expired&email=ada%40example.com', cookies: [CLEARED] })
  })

  it('keeps the step when the service never judged the code: 503, or 429 when it is throttled, with no verdict', async () => {
    refusedWith('auth/internal-error', 500)
    expect(await check(pending())).toMatchObject({ kind: 'page', status: 503, data: { message: 'error.unexpected' } })
    refusedWith('auth/too-many-requests', 429)
    expect(await check(pending())).toMatchObject({ kind: 'page', status: 429, data: { message: 'error.tooManyRequests' } })
    expect(stubs.release.mock.calls).toEqual([['no-verdict'], ['no-verdict']])
  })

  it('for "Confirm it\'s you", goes on where the confirmation leads, or back to it when another account answered', async () => {
    const confirm = { uid: 'ada', next: '/account/password', then: null }
    expect(await check(pending({ confirm }))).toEqual({ kind: 'redirect', location: '/account/password', cookies: ['recent=1', CLEARED] })
    expect(stubs.handleNewSession).not.toHaveBeenCalled()
    stubs.afterConfirmation.mockResolvedValueOnce(null)
    expect(await check(pending({ confirm }))).toEqual({
      kind: 'redirect',
      location: '/account/confirm?next=%2Faccount%2Fpassword&mfaError=expired',
      cookies: [CLEARED],
    })
  })
})
