import { beforeEach, describe, expect, it, vi } from 'vitest'
import { IdentityError } from '~/.server/identity'
import { cookieHeader } from '../../../tests/support/cookie-jar'
import { resendable } from './email-sent'

/**
 * What follows "Confirm it's you": the fresh sign-in kept, then the action it was for, or the verification
 * email it was for (verification.ts); the session's record, the limit and the identity service are stubbed.
 */

const stubs = vi.hoisted(() => ({
  keepRecentSignIn: vi.fn(async () => true),
  release: vi.fn(async (_outcome: string) => {}),
  consumeReset: vi.fn(),
  sendOobCode: vi.fn(async () => {}),
}))
vi.mock('./session', async (original) => ({ ...(await original<object>()), keepRecentSignIn: stubs.keepRecentSignIn }))
vi.mock('~/.server/policy/rate-limit', async (original) => ({
  ...(await original<object>()),
  getRateLimits: () => ({ consumeReset: stubs.consumeReset }),
}))
vi.mock('~/.server/identity', async (original) => ({ ...(await original<object>()), getIdentity: () => ({ sendOobCode: stubs.sendOobCode }) }))
const { afterConfirmation, confirmPageWith } = await import('./recent-login')

const context = { clientIp: '203.0.113.9', requestId: 'test' }
const user = { uid: 'uid-1', email: 'ada@example.com' }
const request = new Request('http://localhost:3000/account/confirm', { method: 'POST', headers: { 'Accept-Language': 'en' } })
const confirm = (then: 'verify' | null) => afterConfirmation(request, user, 'fresh-token', { next: '/account/password', then }, context)

beforeEach(() => {
  vi.clearAllMocks()
  stubs.consumeReset.mockResolvedValue({ ok: true, release: stubs.release })
})

describe('after "Confirm it\'s you"', () => {
  it('keeps the fresh sign-in, then goes on to the action it was for', async () => {
    expect(await confirm(null)).toEqual({ setCookies: [], location: '/account/password' })
    expect(stubs.keepRecentSignIn).toHaveBeenCalledWith(request, user, 'fresh-token')
    expect(stubs.sendOobCode).not.toHaveBeenCalled()
  })

  it('goes nowhere when the session could not keep it', async () => {
    stubs.keepRecentSignIn.mockResolvedValueOnce(false)
    expect(await confirm('verify')).toBeNull()
    expect(stubs.sendOobCode).not.toHaveBeenCalled()
  })

  it('for the verification email: sends it with the fresh token, and the account page says so, this browser keeping when', async () => {
    const sent = await confirm('verify')
    expect(sent).toMatchObject({ location: '/account?verification=sent' })
    // Carried back, the cookie tells the page to wait before "Send the email again".
    const back = new Request('http://localhost:3000/account', { headers: { Cookie: cookieHeader(sent!.setCookies) } })
    expect(resendable(back, 'verify')).toEqual({ retryAt: expect.any(Number) })
    expect(stubs.sendOobCode).toHaveBeenCalledWith({ requestType: 'VERIFY_EMAIL', idToken: 'fresh-token', locale: expect.any(String) })
    expect(stubs.release.mock.calls).toEqual([['success']])
  })

  it('the verification email over its limit, or throttled by the service, is "limited"; refused otherwise, "failed"', async () => {
    stubs.consumeReset.mockResolvedValueOnce({ ok: false, retryAfterSeconds: 60 })
    expect(await confirm('verify')).toEqual({ setCookies: [], location: '/account?verification=limited' })
    expect(stubs.sendOobCode).not.toHaveBeenCalled()
    stubs.sendOobCode.mockRejectedValueOnce(new IdentityError('auth/too-many-requests', 429))
    expect(await confirm('verify')).toMatchObject({ location: '/account?verification=limited' })
    stubs.sendOobCode.mockRejectedValueOnce(new IdentityError('auth/network-request-failed'))
    expect(await confirm('verify')).toEqual({ setCookies: [], location: '/account?verification=failed' })
    // The service down is no verdict on the attempt; its own throttle is.
    expect(stubs.release.mock.calls).toEqual([['no-verdict']])
  })
})

describe('the "Confirm it\'s you" page address', () => {
  it('carries where to go next, what for, and why it is asked again', () => {
    expect(confirmPageWith({ next: '/account/email', then: null })).toBe('/account/confirm?next=%2Faccount%2Femail')
    expect(confirmPageWith({ next: '/account', then: 'verify' }, { ssoError: 'mismatch' })).toBe(
      '/account/confirm?next=%2Faccount&then=verify&ssoError=mismatch',
    )
  })
})
