import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'
import { IdentityError, type AuthCode } from '~/.server/identity'

/** The ways out of the emailed sign-in link, with the limits, the identity call and what follows it stubbed. */

const stubs = vi.hoisted(() => ({
  release: vi.fn(async (_outcome: string) => {}),
  consumeSignIn: vi.fn(),
  consumeEmailLink: vi.fn(),
  afterFirstFactor: vi.fn(),
  sendProtectedOobCode: vi.fn(),
  signInWithEmailLink: vi.fn(),
}))
vi.mock('~/.server/policy/rate-limit', async (original) => ({
  ...(await original<object>()),
  getRateLimits: () => ({ consumeSignIn: stubs.consumeSignIn, consumeEmailLink: stubs.consumeEmailLink }),
}))
vi.mock('~/.server/identity', async (original) => ({
  ...(await original<object>()),
  getIdentity: () => ({ signInWithEmailLink: stubs.signInWithEmailLink }),
}))
vi.mock('./first-factor', () => ({ afterFirstFactor: stubs.afterFirstFactor }))
vi.mock('./protected-email', () => ({ sendProtectedOobCode: stubs.sendProtectedOobCode }))
const { completeEmailLinkSignIn, requestEmailLink } = await import('./email-link')

const context = { clientIp: '203.0.113.9', requestId: 'test', publicOrigin: 'http://localhost:3000' } as AppLoadContext
const request = new Request('http://localhost:3000/action', { method: 'POST' })
const input = { email: 'ada@example.com', oobCode: 'code', continueUrl: null, remember: true }
const refusedWith = (code: AuthCode) => stubs.afterFirstFactor.mockResolvedValueOnce({ ok: false, error: new IdentityError(code, 400) })

describe('completeEmailLinkSignIn', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    stubs.consumeSignIn.mockResolvedValue({ ok: true, release: stubs.release })
  })

  it('over the sign-in limit, says when to try again and asks the service nothing', async () => {
    stubs.consumeSignIn.mockResolvedValueOnce({ ok: false, retryAfterSeconds: 60 })
    const outcome = await completeEmailLinkSignIn(request, input, context)
    expect(outcome).toMatchObject({ ok: false, status: 429, message: 'error.tooManyRequestsAt' })
    expect(outcome.ok === false && outcome.retryAt).toBeGreaterThan(Date.now())
    expect(stubs.afterFirstFactor).not.toHaveBeenCalled()
  })

  it('hands the link to the identity service under the sign-in limit, with the checked way on', async () => {
    stubs.afterFirstFactor.mockResolvedValueOnce({ ok: true, setCookies: ['session=1'], location: '/account' })
    expect(await completeEmailLinkSignIn(request, input, context)).toEqual({ ok: true, setCookies: ['session=1'], location: '/account' })
    const [, limit, first, answer] = stubs.afterFirstFactor.mock.calls[0]!
    expect(limit).toMatchObject({ ok: true })
    expect(first).toEqual({ method: 'email-link', email: 'ada@example.com', redirect: null, remember: true })
    await answer()
    expect(stubs.signInWithEmailLink).toHaveBeenCalledWith('ada@example.com', 'code')
    expect(stubs.release).not.toHaveBeenCalled()
  })

  it('a used or expired link is an invalid link, with no verdict on the attempt', async () => {
    refusedWith('auth/invalid-action-code')
    expect(await completeEmailLinkSignIn(request, input, context)).toEqual({
      ok: false,
      status: 400,
      message: 'error.invalidLink',
      invalidLink: true,
    })
    expect(stubs.release.mock.calls).toEqual([['no-verdict']])
  })

  it('another address than the link was sent to counts as a failure and says the address does not match', async () => {
    refusedWith('auth/invalid-email')
    expect(await completeEmailLinkSignIn(request, input, context)).toEqual({ ok: false, status: 400, message: 'emailLink.emailMismatch' })
    expect(stubs.release.mock.calls).toEqual([['failure']])
  })

  it('a disabled account is told so: whoever holds the link holds the mailbox', async () => {
    refusedWith('auth/user-disabled')
    expect(await completeEmailLinkSignIn(request, input, context)).toEqual({ ok: false, status: 403, message: 'error.accountDisabled' })
  })

  it('the service unavailable is said as such, with its status', async () => {
    refusedWith('auth/network-request-failed')
    expect(await completeEmailLinkSignIn(request, input, context)).toMatchObject({ ok: false, status: 503 })
    expect(stubs.release.mock.calls).toEqual([['no-verdict']])
  })
})

describe('requestEmailLink', () => {
  beforeEach(() => vi.clearAllMocks())

  it('over its own limit, sends nothing and answers the same', async () => {
    stubs.consumeEmailLink.mockResolvedValueOnce({ ok: false, retryAfterSeconds: 60 })
    await requestEmailLink({ email: 'ada@example.com', locale: 'en', redirect: null }, context)
    expect(stubs.sendProtectedOobCode).not.toHaveBeenCalled()
  })

  it('sends an EMAIL_SIGNIN code with the posted captcha token, in the page language', async () => {
    stubs.consumeEmailLink.mockResolvedValueOnce({ ok: true })
    await requestEmailLink({ email: 'ada@example.com', locale: 'fr', redirect: null, captchaResponse: 'token' }, context)
    const [sent, token] = stubs.sendProtectedOobCode.mock.calls[0]!
    expect(sent).toMatchObject({ requestType: 'EMAIL_SIGNIN', email: 'ada@example.com', locale: 'fr' })
    expect(token).toBe('token')
  })
})
