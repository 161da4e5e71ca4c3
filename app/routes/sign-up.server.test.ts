import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'
import { IdentityError } from '~/.server/identity'
import type { SignUpInput } from './sign-up.server'

/**
 * Sign-up's ways out, with the identity service and the limit stubbed. The service is asked after the
 * response (context.afterResponse): each test runs that work itself, once the answer is in hand.
 */

const stubs = vi.hoisted(() => ({
  signUp: vi.fn(async (_email: string, _password: string, _options: object) => ({ idToken: 'new-account-token' })),
  sendOobCode: vi.fn(async (_request: object) => ({})),
  consumeSignUp: vi.fn(),
}))
vi.mock('~/.server/identity', async (original) => ({
  ...(await original<object>()),
  getIdentity: () => ({ signUp: stubs.signUp, sendOobCode: stubs.sendOobCode }),
}))
vi.mock('~/.server/policy/rate-limit', async (original) => ({
  ...(await original<object>()),
  getRateLimits: () => ({ consumeSignUp: stubs.consumeSignUp }),
}))
const { requestSignUp } = await import('./sign-up.server')

const STRONG = 'violet-harbour-quietly-72'
const later: Array<() => void> = []
const context = {
  clientIp: '203.0.113.9',
  requestId: 'test',
  publicOrigin: 'http://localhost:3000',
  afterResponse: (work: () => void) => void later.push(work),
} as AppLoadContext
const input: SignUpInput = { email: 'ada@example.com', password: STRONG, confirmation: STRONG, locale: 'en', redirect: null, captcha: {} }
const signUp = (changes: Partial<SignUpInput> = {}) =>
  requestSignUp(new Request('http://localhost:3000/sign-up', { method: 'POST' }), { ...input, ...changes }, context)
/** What the portal does once the response has gone. */
const afterTheResponse = async () => {
  for (const work of later.splice(0)) work()
  await new Promise((resolve) => setTimeout(resolve, 10))
}
const SENT = { kind: 'redirect', location: '/sign-up?sent=1' }

describe('sign-up', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    later.length = 0
    stubs.consumeSignUp.mockResolvedValue({ ok: true })
  })

  it('refuses a bad address or a weak password (400) before counting or asking anything', async () => {
    expect(await signUp({ email: 'not-an-address' })).toMatchObject({ kind: 'page', status: 400, data: { emailError: expect.any(String) } })
    const weak = await signUp({ password: 'Password1234!', confirmation: 'Password1234!' })
    expect(weak).toMatchObject({ kind: 'page', status: 400, data: { email: 'ada@example.com', rejection: { passwordError: expect.any(String) } } })
    expect(stubs.consumeSignUp).not.toHaveBeenCalled()
    expect(later).toEqual([])
  })

  it('answers "sent" at once, then creates the account and sends its verification email', async () => {
    const answer = await signUp({ redirect: '/account' })
    expect(answer).toMatchObject({ kind: 'redirect', location: '/sign-up?sent=1&redirect=%2Faccount' })
    expect(answer.cookies?.length).toBeGreaterThan(0)
    expect(stubs.signUp).not.toHaveBeenCalled()
    await afterTheResponse()
    expect(stubs.signUp).toHaveBeenCalledWith('ada@example.com', STRONG, { captchaResponse: undefined })
    expect(stubs.sendOobCode).toHaveBeenCalledWith(expect.objectContaining({ requestType: 'VERIFY_EMAIL', idToken: 'new-account-token' }))
  })

  it('gives an address that has an account the same answer, and sends its owner a reset email instead', async () => {
    stubs.signUp.mockRejectedValueOnce(new IdentityError('auth/email-already-in-use', 400))
    expect(await signUp()).toMatchObject(SENT)
    await afterTheResponse()
    expect(stubs.sendOobCode.mock.calls).toEqual([[expect.objectContaining({ requestType: 'PASSWORD_RESET', email: 'ada@example.com' })]])
  })

  it('over the limit, answers the same and asks the service nothing', async () => {
    stubs.consumeSignUp.mockResolvedValue({ ok: false, retryAfterSeconds: 60 })
    expect(await signUp()).toMatchObject(SENT)
    expect(later).toEqual([])
  })

  // Last: the module keeps the project's refusal for 5 minutes.
  it('once the project refuses sign-ups, says they are turned off (403) without asking again', async () => {
    stubs.signUp.mockRejectedValueOnce(new IdentityError('auth/operation-not-allowed', 400))
    expect(await signUp()).toMatchObject(SENT)
    await afterTheResponse()
    expect(await signUp()).toMatchObject({ kind: 'page', status: 403, data: { formError: 'signUp.turnedOff' } })
    expect(stubs.consumeSignUp).toHaveBeenCalledTimes(1)
    expect(later).toEqual([])
  })
})
