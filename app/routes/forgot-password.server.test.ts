import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'
import { logger } from '~/.server/ops/logger'

/** The ways out of the reset-email request, with the limit, the captcha check and the sending stubbed. */

type Failed = (code: string, captcha?: string) => void
const stubs = vi.hoisted(() => ({
  captchaTokenMissing: vi.fn(() => false),
  consumeReset: vi.fn(),
  sendProtectedOobCode: vi.fn((_request: object, _captcha: string | undefined, _failed: Failed) => {}),
}))
vi.mock('~/.server/identity/recaptcha', async (original) => ({
  ...(await original<object>()),
  captchaTokenMissing: stubs.captchaTokenMissing,
}))
vi.mock('~/.server/policy/rate-limit', async (original) => ({
  ...(await original<object>()),
  getRateLimits: () => ({ consumeReset: stubs.consumeReset }),
}))
vi.mock('~/.server/auth/email-sent', async (original) => ({
  ...(await original<object>()),
  rememberSent: () => ['email_sent=sealed'],
}))
vi.mock('~/.server/auth/protected-email', () => ({ sendProtectedOobCode: stubs.sendProtectedOobCode }))
const { requestPasswordReset } = await import('./forgot-password.server')

const context = { clientIp: '203.0.113.9', requestId: 'test', publicOrigin: 'http://localhost:3000' } as AppLoadContext
const input = { email: 'ada@example.com', locale: 'en' as const, redirect: null, captchaResponse: 'token' }
const request = () => new Request('http://localhost:3000/forgot-password', { method: 'POST' })
const SENT = { kind: 'redirect', location: '/forgot-password?sent=1', cookies: ['email_sent=sealed'] }

describe('the reset email asked for at /forgot-password', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    stubs.consumeReset.mockResolvedValue({ ok: true })
  })

  it('asks for JavaScript when the captcha check wants a token the form did not carry, and counts nothing', async () => {
    stubs.captchaTokenMissing.mockReturnValueOnce(true)
    const result = await requestPasswordReset(request(), { ...input, captchaResponse: undefined }, context)
    expect(result).toMatchObject({ kind: 'page', status: 400, data: { email: 'ada@example.com', formError: 'error.captchaNeedsJs' } })
    expect(stubs.consumeReset).not.toHaveBeenCalled()
    expect(stubs.sendProtectedOobCode).not.toHaveBeenCalled()
  })

  it('sends the email and says it went, keeping the redirect for the link', async () => {
    const result = await requestPasswordReset(request(), { ...input, redirect: 'https://app.example/home' }, context)
    expect(result).toEqual({ ...SENT, location: '/forgot-password?sent=1&redirect=https%3A%2F%2Fapp.example%2Fhome' })
    expect(stubs.consumeReset).toHaveBeenCalledWith({ ip: '203.0.113.9', email: 'ada@example.com', device: null, reqId: 'test' })
    expect(stubs.sendProtectedOobCode).toHaveBeenCalledWith(
      expect.objectContaining({ requestType: 'PASSWORD_RESET', email: 'ada@example.com', locale: 'en' }),
      'token',
      expect.any(Function),
    )
  })

  it('answers a request over the limit as if the email went, and sends nothing', async () => {
    stubs.consumeReset.mockResolvedValue({ ok: false, retryAfterSeconds: 600 })
    expect(await requestPasswordReset(request(), input, context)).toEqual(SENT)
    expect(stubs.sendProtectedOobCode).not.toHaveBeenCalled()
  })

  it('logs an address without an account as debug only, and any other failure as a warning', async () => {
    const debug = vi.spyOn(logger, 'debug').mockImplementation(() => {})
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {})
    await requestPasswordReset(request(), input, context)
    const failed = stubs.sendProtectedOobCode.mock.calls[0]![2]
    failed('auth/user-not-found')
    expect(debug).toHaveBeenCalledWith(expect.objectContaining({ event: 'reset-email-failed', code: 'auth/user-not-found' }), 'reset email not sent')
    expect(warn).not.toHaveBeenCalled()
    failed('auth/internal-error')
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ code: 'auth/internal-error' }), 'reset email not sent')
    debug.mockRestore()
    warn.mockRestore()
  })
})
