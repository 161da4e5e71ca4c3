import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'
import { IdentityError, type MfaRequired } from '~/.server/identity'
import type { SessionUser } from '~/.server/auth/session'

/** The ways out of "Confirm it's you", with the identity service, the limit and the next steps stubbed. */

const stubs = vi.hoisted(() => ({
  signInWithPassword: vi.fn<() => Promise<{ idToken: string; localId: string }>>(),
  consumeSignIn: vi.fn(),
  release: vi.fn(async (_outcome: string) => {}),
  afterConfirmation: vi.fn(async () => ({ location: '/account/password', setCookies: ['recent=1'] })),
  beginSecondFactor: vi.fn(async () => ({ setCookies: ['mfa_pending=1'], location: '/second-factor' })),
}))
vi.mock('~/.server/identity', async (original) => ({
  ...(await original<object>()),
  getIdentity: () => ({ signInWithPassword: stubs.signInWithPassword }),
}))
vi.mock('~/.server/policy/rate-limit', async (original) => ({
  ...(await original<object>()),
  getRateLimits: () => ({ consumeSignIn: stubs.consumeSignIn }),
}))
vi.mock('~/.server/auth/recent-login', async (original) => ({
  ...(await original<object>()),
  afterConfirmation: stubs.afterConfirmation,
}))
vi.mock('~/.server/auth/second-factor', async (original) => ({
  ...(await original<object>()),
  beginSecondFactor: stubs.beginSecondFactor,
}))
const { confirmPassword } = await import('./account.confirm.server')

const context = { clientIp: '203.0.113.9', requestId: 'test', publicOrigin: 'http://localhost:3000' } as AppLoadContext
const user: SessionUser = { uid: 'ada', email: 'ada@example.com', remembered: false, sessionKey: 'k', recentIdToken: null }
const after = { next: '/account/password', then: null } as const
const confirm = (who: SessionUser = user) =>
  confirmPassword(new Request('http://localhost:3000/account/confirm', { method: 'POST' }), who, { password: 'pw' }, after, context)

describe('"Confirm it\'s you" at /account/confirm', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    stubs.consumeSignIn.mockResolvedValue({ ok: true, release: stubs.release })
  })

  it('refuses an account without an address, so without a password, before counting anything', async () => {
    expect(await confirm({ ...user, email: null })).toMatchObject({ kind: 'page', status: 403, data: { formError: 'confirm.noPassword' } })
    expect(stubs.consumeSignIn).not.toHaveBeenCalled()
  })

  it("answers 429 with the time to come back under sign-in's limit, without asking the service", async () => {
    stubs.consumeSignIn.mockResolvedValue({ ok: false, retryAfterSeconds: 60 })
    expect(await confirm()).toMatchObject({ kind: 'page', status: 429, retryAfter: 60, data: { formError: 'error.tooManyRequestsAt' } })
    expect(stubs.signInWithPassword).not.toHaveBeenCalled()
  })

  it('says the password is wrong, and counts it as a failed sign-in', async () => {
    stubs.signInWithPassword.mockRejectedValue(new IdentityError('auth/invalid-credential', 400))
    expect(await confirm()).toMatchObject({ kind: 'page', status: 400, data: { formError: 'confirm.wrongPassword' } })
    expect(stubs.release.mock.calls).toEqual([['failure']])
    expect(stubs.afterConfirmation).not.toHaveBeenCalled()
  })

  it('goes through the second-factor step for an account that has one, the attempt released without a verdict', async () => {
    const mfa: MfaRequired = { pendingCredential: 'p', factors: [{ kind: 'totp', id: 't', displayName: null }], email: null }
    stubs.signInWithPassword.mockRejectedValue(Object.assign(new IdentityError('auth/multi-factor-auth-required', 400), { mfa }))
    expect(await confirm()).toEqual({ kind: 'redirect', location: '/second-factor', cookies: ['mfa_pending=1'] })
    expect(stubs.beginSecondFactor).toHaveBeenCalledWith(
      expect.any(Request),
      expect.objectContaining({ mfa, email: 'ada@example.com', confirm: { uid: 'ada', ...after } }),
      context,
    )
    expect(stubs.release.mock.calls).toEqual([['no-verdict']])
  })

  it("refuses another account's password, and confirms nothing", async () => {
    stubs.signInWithPassword.mockResolvedValue({ idToken: 'id', localId: 'someone-else' })
    expect(await confirm()).toMatchObject({ kind: 'page', status: 400, data: { formError: 'error.sessionExpired' } })
    expect(stubs.afterConfirmation).not.toHaveBeenCalled()
    expect(stubs.release.mock.calls).toEqual([['no-verdict']])
  })

  it('confirms the right password and goes on, the attempt released once as a success', async () => {
    stubs.signInWithPassword.mockResolvedValue({ idToken: 'id', localId: 'ada' })
    expect(await confirm()).toEqual({ kind: 'redirect', location: '/account/password', cookies: ['recent=1'] })
    expect(stubs.afterConfirmation).toHaveBeenCalledWith(expect.any(Request), user, 'id', after, context)
    expect(stubs.release.mock.calls).toEqual([['success']])
  })
})
