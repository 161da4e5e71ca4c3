import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'
import { IdentityError, type MfaRequired } from '~/.server/identity'
import { multiFactorRequired } from '~/.server/identity/errors'

/** How the email link, a passkey and a recent login end, with the session and the second-factor step stubbed. */

const stubs = vi.hoisted(() => ({
  release: vi.fn(async (_outcome: string) => {}),
  handleNewSession: vi.fn(async () => ({ setCookies: ['session=1'], location: 'https://app.example/home' })),
  beginSecondFactor: vi.fn(async () => ({ setCookies: ['mfa_pending=1'], location: '/second-factor' })),
}))
vi.mock('./session', async (original) => ({ ...(await original<object>()), handleNewSession: stubs.handleNewSession }))
vi.mock('./second-factor', async (original) => ({ ...(await original<object>()), beginSecondFactor: stubs.beginSecondFactor }))
const { afterFirstFactor } = await import('./first-factor')

const context = { clientIp: '203.0.113.9', requestId: 'test', publicOrigin: 'http://localhost:3000' } as AppLoadContext
const first = { method: 'email-link', email: 'typed@example.com', redirect: null, remember: true } as const
const request = new Request('http://localhost:3000/', { method: 'POST' })
const after = (answer: () => Promise<{ idToken: string; email?: string }>) =>
  afterFirstFactor(request, { release: stubs.release }, first, answer, context)

describe('afterFirstFactor', () => {
  beforeEach(() => vi.clearAllMocks())

  it("opens a session under the account's own address, then releases the attempt as a success", async () => {
    const result = await after(async () => ({ idToken: 'token', email: 'Account@example.com' }))
    expect(result).toEqual({ ok: true, setCookies: ['session=1'], location: 'https://app.example/home' })
    expect(stubs.handleNewSession).toHaveBeenCalledWith('token', { ...first, email: 'Account@example.com' }, context)
    expect(stubs.release.mock.calls).toEqual([['success']])
  })

  it('keeps the address typed when the service names none', async () => {
    await after(async () => ({ idToken: 'token', email: '' }))
    expect(stubs.handleNewSession).toHaveBeenCalledWith('token', first, context)
  })

  it('hands over to the second-factor step when the account asks for one, with no verdict on the attempt', async () => {
    const mfa: MfaRequired = { pendingCredential: 'pending', factors: [{ kind: 'totp', id: 't1', displayName: null }], email: 'Account@example.com' }
    const result = await after(() => Promise.reject(multiFactorRequired(400, mfa)))
    expect(result).toEqual({ ok: true, setCookies: ['mfa_pending=1'], location: '/second-factor' })
    expect(stubs.beginSecondFactor).toHaveBeenCalledWith(request, { mfa, ...first, email: 'Account@example.com' }, context)
    expect(stubs.release.mock.calls).toEqual([['no-verdict']])
    expect(stubs.handleNewSession).not.toHaveBeenCalled()
  })

  it('gives any other refusal back to its flow, the attempt left to it', async () => {
    const refusal = new IdentityError('auth/invalid-action-code', 400)
    expect(await after(() => Promise.reject(refusal))).toEqual({ ok: false, error: refusal })
    stubs.handleNewSession.mockRejectedValueOnce(new Error('the ID token does not come from a recent sign-in'))
    expect(await after(async () => ({ idToken: 'old' }))).toMatchObject({ ok: false })
    expect(stubs.release).not.toHaveBeenCalled()
    expect(stubs.beginSecondFactor).not.toHaveBeenCalled()
  })
})
