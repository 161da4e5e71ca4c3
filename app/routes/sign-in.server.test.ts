import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'
import { IdentityError, type MfaRequired } from '~/.server/identity'
import { fieldErrorsOf } from '~/lib/schemas'

/** The four ways out of the password sign-in, with the identity service, the limit and the session stubbed. */

const stubs = vi.hoisted(() => ({
  signInWithPassword: vi.fn<() => Promise<{ idToken: string }>>(),
  consumeSignIn: vi.fn(),
  release: vi.fn(async (_outcome: string) => {}),
  handleNewSession: vi.fn(async () => ({ setCookies: ['session=1'], location: 'https://app.example/home' })),
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
vi.mock('~/.server/auth/session', async (original) => ({
  ...(await original<object>()),
  handleNewSession: stubs.handleNewSession,
}))
vi.mock('~/.server/auth/second-factor', async (original) => ({
  ...(await original<object>()),
  beginSecondFactor: stubs.beginSecondFactor,
}))
const { SignInFormSchema, signInWithPassword } = await import('./sign-in.server')

const context = { clientIp: '203.0.113.9', requestId: 'test', publicOrigin: 'http://localhost:3000' } as AppLoadContext
const input = { email: 'ada@example.com', password: 'correct horse', remember: false, redirect: null }
const signIn = () => signInWithPassword(new Request('http://localhost:3000/', { method: 'POST' }), input, context)

describe('the password sign-in of the page at "/"', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    stubs.consumeSignIn.mockResolvedValue({ ok: true, release: stubs.release })
  })

  it('answers 429 with the time to come back when the limit is reached, without asking the service', async () => {
    stubs.consumeSignIn.mockResolvedValue({ ok: false, retryAfterSeconds: 60 })
    const result = await signIn()
    expect(result).toMatchObject({
      kind: 'page',
      status: 429,
      retryAfter: 60,
      data: { formError: 'error.tooManyRequestsAt' },
    })
    expect(stubs.signInWithPassword).not.toHaveBeenCalled()
  })

  it('refuses wrong credentials with the page again, and releases the attempt once as a failure', async () => {
    stubs.signInWithPassword.mockRejectedValue(new IdentityError('auth/invalid-credential', 400))
    const result = await signIn()
    expect(result).toMatchObject({
      kind: 'page',
      status: 400,
      data: { email: 'ada@example.com', remember: false, formError: 'error.wrongCredentials', captcha: null },
    })
    expect(stubs.release.mock.calls).toEqual([['failure']])
    expect(stubs.handleNewSession).not.toHaveBeenCalled()
  })

  it('sends an account with a second factor to that step, the attempt released once without a verdict', async () => {
    const mfa: MfaRequired = {
      pendingCredential: 'pending',
      factors: [{ kind: 'totp', id: 't', displayName: null }],
      email: null,
    }
    stubs.signInWithPassword.mockRejectedValue(
      Object.assign(new IdentityError('auth/multi-factor-auth-required', 400), { mfa }),
    )
    const result = await signIn()
    expect(result).toEqual({ kind: 'redirect', location: '/second-factor', cookies: ['mfa_pending=1'] })
    expect(stubs.beginSecondFactor).toHaveBeenCalledWith(
      expect.any(Request),
      expect.objectContaining({ mfa, method: 'password', email: 'ada@example.com' }),
      context,
    )
    expect(stubs.release.mock.calls).toEqual([['no-verdict']])
    expect(stubs.handleNewSession).not.toHaveBeenCalled()
  })

  it('starts a session and sends the visitor on, the attempt released once as a success', async () => {
    stubs.signInWithPassword.mockResolvedValue({ idToken: 'id-token' })
    const result = await signIn()
    expect(result).toEqual({ kind: 'redirect', location: 'https://app.example/home', cookies: ['session=1'] })
    expect(stubs.handleNewSession).toHaveBeenCalledWith(
      'id-token',
      { method: 'password', email: 'ada@example.com', redirect: null, remember: false },
      context,
    )
    expect(stubs.release.mock.calls).toEqual([['success']])
  })

  it('refuses when the session cannot be made after the service said yes, releasing the attempt once', async () => {
    stubs.signInWithPassword.mockResolvedValue({ idToken: 'id-token' })
    stubs.handleNewSession.mockRejectedValueOnce(new IdentityError('auth/internal-error', 500))
    const result = await signIn()
    expect(result).toMatchObject({ kind: 'page' })
    expect(stubs.release.mock.calls).toEqual([['no-verdict']])
  })
})

function errorsOf(input: Record<string, unknown>) {
  const result = SignInFormSchema.safeParse(input)
  return result.success ? {} : fieldErrorsOf(result.error)
}

describe('the sign-in form schema', () => {
  it('accepts a trimmed address and any password', () => {
    expect(SignInFormSchema.parse({ email: '  a@example.com ', password: ' x ' })).toEqual({
      email: 'a@example.com',
      password: ' x ',
    })
  })

  it.each([
    [{ email: '', password: 'x' }, { email: 'validation.emailRequired' }],
    [{ email: 'nope', password: 'x' }, { email: 'validation.emailInvalid' }],
    [{ email: `${'a'.repeat(250)}@example.com`, password: 'x' }, { email: 'validation.emailTooLong' }],
    [{ email: 'a@example.com', password: '' }, { password: 'validation.passwordRequired' }],
    [{}, { email: 'validation.emailRequired', password: 'validation.passwordRequired' }],
    [{ email: 42, password: null }, { email: 'validation.emailRequired', password: 'validation.passwordRequired' }],
  ])('%j gives %j', (input, expected) => {
    expect(errorsOf(input)).toEqual(expected)
  })
})
