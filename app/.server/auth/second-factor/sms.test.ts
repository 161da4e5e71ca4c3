import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'
import { IdentityError } from '~/.server/identity'
import type { Pending } from './pending'

/** Sending the SMS code of the second-factor step: the identity service, its limit and the page's captcha settings stubbed. */

const stubs = vi.hoisted(() => ({
  release: vi.fn(async (_outcome: string) => {}),
  consumeMfaSms: vi.fn(),
  startMfaSignIn: vi.fn(),
  captchaSettings: vi.fn((): object | null => null),
}))
vi.mock('~/.server/policy/rate-limit', async (original) => ({
  ...(await original<object>()),
  getRateLimits: () => ({ consumeMfaSms: stubs.consumeMfaSms }),
}))
vi.mock('~/.server/identity', async (original) => ({
  ...(await original<object>()),
  getIdentity: () => ({ startMfaSignIn: stubs.startMfaSignIn }),
}))
vi.mock('~/.server/identity/recaptcha', async (original) => ({ ...(await original<object>()), captchaSettings: stubs.captchaSettings }))
const { sendSms } = await import('./sms')

const context = { clientIp: '203.0.113.9', requestId: 'test' } as AppLoadContext
const pending = (overrides: Partial<Pending> = {}): Pending => ({
  id: 'pending-1',
  credential: 'pending-credential',
  factors: [
    { kind: 'phone', id: 'phone-1', displayName: null, phone: '+33*******78' },
    { kind: 'totp', id: 'totp-1', displayName: null },
  ],
  method: 'password',
  email: 'ada@example.com',
  redirect: null,
  remember: false,
  confirm: null,
  chosen: 'phone-1',
  session: null,
  sentAt: null,
  captcha: false,
  notice: null,
  retryAt: null,
  expires: Math.floor(Date.now() / 1000) + 600,
  ...overrides,
})

beforeEach(() => {
  vi.clearAllMocks()
  stubs.consumeMfaSms.mockResolvedValue({ ok: true, release: stubs.release })
})

describe('sendSms', () => {
  it('sends the chosen phone its code, with the posted token, and counts it against the limit', async () => {
    stubs.startMfaSignIn.mockResolvedValueOnce({ sessionInfo: 'sms-session' })
    const p = pending({ captcha: true })
    await sendSms(p, context, 'token')
    expect(stubs.startMfaSignIn).toHaveBeenCalledWith({ pendingCredential: 'pending-credential', enrollmentId: 'phone-1', captchaResponse: 'token' })
    expect(p).toMatchObject({ session: 'sms-session', captcha: false, notice: null })
    expect(p.sentAt).toBeGreaterThan(0)
    expect(stubs.release.mock.calls).toEqual([['failure']])
    expect(stubs.consumeMfaSms.mock.calls[0]![0]).toMatchObject({ pending: 'pending-1', account: 'ada@example.com', phone: 'phone-1' })
  })

  it('sends nothing for an authenticator app, nor when the page could not load the check', async () => {
    await sendSms(pending({ chosen: 'totp-1' }), context)
    const p = pending({ captcha: true })
    await sendSms(p, context, '')
    expect(p.notice).toBe('mfa.checkFailed')
    expect(stubs.startMfaSignIn).not.toHaveBeenCalled()
    expect(stubs.consumeMfaSms).not.toHaveBeenCalled()
  })

  it('over the SMS limit, says when, and sends nothing', async () => {
    stubs.consumeMfaSms.mockResolvedValueOnce({ ok: false, retryAfterSeconds: 120 })
    const p = pending()
    await sendSms(p, context)
    expect(p.notice).toBe('mfa.smsLimitedAt')
    expect(p.retryAt).toBeGreaterThan(Date.now())
    expect(stubs.startMfaSignIn).not.toHaveBeenCalled()
  })

  it('a captcha refusal asks the page for the check when the project has one, else says the code did not go', async () => {
    stubs.startMfaSignIn.mockRejectedValue(new IdentityError('auth/missing-recaptcha-token', 400))
    stubs.captchaSettings.mockReturnValueOnce({ siteKey: 'k', src: 'https://www.google.com/recaptcha/api.js?render=k' })
    const checked = pending()
    await sendSms(checked, context)
    expect(checked).toMatchObject({ captcha: true, notice: null, session: null })
    const unchecked = pending()
    await sendSms(unchecked, context)
    expect(unchecked).toMatchObject({ captcha: false, notice: 'mfa.sendFailed' })
    expect(stubs.release.mock.calls).toEqual([['no-verdict'], ['no-verdict']])
  })

  it("the service's own throttle is said as too many requests; another failure as a code that did not go", async () => {
    stubs.startMfaSignIn.mockRejectedValueOnce(new IdentityError('auth/too-many-requests', 429))
    const throttled = pending()
    await sendSms(throttled, context)
    expect(throttled.notice).toBe('error.tooManyRequests')
    stubs.startMfaSignIn.mockRejectedValueOnce(new IdentityError('auth/network-request-failed'))
    const down = pending()
    await sendSms(down, context)
    expect(down.notice).toBe('mfa.sendFailed')
  })
})
