import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'
import { IdentityError, type CredentialJson } from '~/.server/identity'

/**
 * Adding and removing a passkey on the account; the identity service, the account's record, the limits and the
 * browser's answer to the challenge are stubbed (passkey-challenge and the browser tests check that answer).
 */

const stubs = vi.hoisted(() => ({
  release: vi.fn(async (_outcome: string) => {}),
  limit: vi.fn(),
  readPasskeys: vi.fn(),
  readAccount: vi.fn(),
  startPasskeyEnrollment: vi.fn(),
  finalizePasskeyEnrollment: vi.fn(async () => {}),
  deletePasskey: vi.fn(async () => {}),
  checkAnswer: vi.fn(),
}))
vi.mock('./identity-admin', async (original) => ({
  ...(await original<object>()),
  readPasskeys: stubs.readPasskeys,
  readAccount: stubs.readAccount,
}))
vi.mock('~/.server/identity', async (original) => ({
  ...(await original<object>()),
  getIdentity: () => ({
    startPasskeyEnrollment: stubs.startPasskeyEnrollment,
    finalizePasskeyEnrollment: stubs.finalizePasskeyEnrollment,
    deletePasskey: stubs.deletePasskey,
  }),
}))
vi.mock('~/.server/policy/rate-limit', async (original) => ({
  ...(await original<object>()),
  getRateLimits: () => ({ consumeEnrolStart: stubs.limit, consumeNewPassword: stubs.limit }),
}))
vi.mock('./passkey-challenge', async (original) => ({ ...(await original<object>()), checkAnswer: stubs.checkAnswer }))
const { finishEnrolment, refOf, removePasskey, startEnrolment } = await import('./passkeys')

const context = { clientIp: '203.0.113.9', requestId: 'test', publicOrigin: 'http://localhost:3000' } as AppLoadContext
const confirmed = { user: { uid: 'uid-1', email: 'ada@example.com' }, idToken: 'recent-token' } as Parameters<typeof removePasskey>[1]
const request = new Request('http://localhost:3000/account/passkeys/add', { method: 'POST' })
const credential = { id: 'cred-1' } as unknown as CredentialJson
const CLEARED = expect.stringMatching(/Max-Age=0/)

beforeEach(() => {
  vi.clearAllMocks()
  stubs.limit.mockResolvedValue({ ok: true, release: stubs.release })
  stubs.readPasskeys.mockResolvedValue([{ credentialId: 'cred-1', name: 'Laptop' }])
  stubs.readAccount.mockResolvedValue({ providers: ['password'] })
})

describe('removing a passkey', () => {
  const remove = (ref = refOf('cred-1')) => removePasskey(request, confirmed, ref, context)

  it('deletes the one named by its digest, never its id, and says it is done', async () => {
    expect(refOf('cred-1')).not.toContain('cred-1')
    expect(await remove()).toEqual({ kind: 'redirect', location: '/account?done=passkey-removed' })
    expect(stubs.deletePasskey).toHaveBeenCalledWith('recent-token', 'cred-1')
    expect(stubs.release.mock.calls).toEqual([['success']])
  })

  it("will not remove an account's last way in", async () => {
    stubs.readAccount.mockResolvedValueOnce({ providers: [] })
    expect(await remove()).toEqual({ kind: 'page', data: { formError: 'passkeys.lastMethod' }, status: 400 })
    expect(stubs.deletePasskey).not.toHaveBeenCalled()
  })

  it('a passkey the account does not have goes back to the account; no account record is a 503', async () => {
    expect(await remove('no-such-ref')).toEqual({ kind: 'redirect', location: '/account' })
    stubs.readPasskeys.mockRejectedValueOnce(new Error('down'))
    expect(await remove()).toMatchObject({ kind: 'error', status: 503 })
    expect(stubs.deletePasskey).not.toHaveBeenCalled()
  })

  it('over the limit, says when; the service wanting a fresher sign-in asks "Confirm it\'s you"; down, a 503', async () => {
    stubs.limit.mockResolvedValueOnce({ ok: false, retryAfterSeconds: 60 })
    expect(await remove()).toMatchObject({ status: 429, retryAfter: 60, data: { formError: 'error.tooManyRequestsAt' } })
    stubs.deletePasskey.mockRejectedValueOnce(new IdentityError('auth/requires-recent-login', 400))
    expect(await remove()).toMatchObject({ kind: 'redirect', location: expect.stringContaining('/account/confirm?next=%2Faccount%2Fpasskeys%2Fremove') })
    stubs.deletePasskey.mockRejectedValueOnce(new IdentityError('auth/network-request-failed'))
    expect(await remove()).toMatchObject({ status: 503, data: { formError: 'error.unexpected' } })
    expect(stubs.release.mock.calls).toEqual([['no-verdict']])
  })
})

describe('adding a passkey', () => {
  const finish = (name = '  Laptop  ') => finishEnrolment(request, confirmed, { credential, name }, context)

  it('the start, over the limit or needing a fresher sign-in, asks nothing of the browser', async () => {
    stubs.limit.mockResolvedValueOnce({ ok: false, retryAfterSeconds: 60 })
    expect(await startEnrolment(request, confirmed, context)).toMatchObject({ status: 429, data: { error: 'error.tooManyRequests' } })
    stubs.startPasskeyEnrollment.mockRejectedValueOnce(new IdentityError('auth/requires-recent-login', 400))
    expect(await startEnrolment(request, confirmed, context)).toMatchObject({ location: '/account/confirm?next=%2Faccount%2Fpasskeys%2Fadd' })
    stubs.startPasskeyEnrollment.mockRejectedValueOnce(new IdentityError('auth/network-request-failed'))
    expect(await startEnrolment(request, confirmed, context)).toMatchObject({ status: 503, data: { error: 'error.unexpected' } })
    expect(stubs.release.mock.calls).toEqual([['no-verdict']])
  })

  it("the browser's answer to this browser's challenge adds it under its trimmed name, the challenge cleared", async () => {
    stubs.checkAnswer.mockResolvedValueOnce({ ok: true })
    expect(await finish()).toEqual({ kind: 'page', data: { location: '/account?done=passkey-added' }, cookies: [CLEARED] })
    expect(stubs.finalizePasskeyEnrollment).toHaveBeenCalledWith('recent-token', credential, 'Laptop')
  })

  it('an answer too late, or to another challenge, is refused before the service is asked', async () => {
    stubs.checkAnswer.mockResolvedValueOnce({ ok: false, reason: 'expired' })
    expect(await finish()).toMatchObject({ status: 400, data: { error: 'passkey.timedOut' }, cookies: [CLEARED] })
    stubs.checkAnswer.mockResolvedValueOnce({ ok: false, reason: 'challenge' })
    expect(await finish()).toMatchObject({ status: 400, data: { error: 'passkey.refused' } })
    expect(stubs.finalizePasskeyEnrollment).not.toHaveBeenCalled()
  })

  it('a passkey already on an account is said so; the service down is unexpected', async () => {
    stubs.checkAnswer.mockResolvedValue({ ok: true })
    stubs.finalizePasskeyEnrollment.mockRejectedValueOnce(new IdentityError('auth/credential-already-in-use', 400))
    expect(await finish()).toMatchObject({ status: 400, data: { error: 'passkey.exists' } })
    stubs.finalizePasskeyEnrollment.mockRejectedValueOnce(new IdentityError('auth/network-request-failed'))
    expect(await finish()).toMatchObject({ data: { error: 'error.unexpected' } })
  })
})
