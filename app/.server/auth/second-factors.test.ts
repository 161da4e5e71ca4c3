import { encode } from 'uqr'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'
import { IdentityError } from '~/.server/identity'
import { cookieHeader } from '../../../tests/support/cookie-jar'
import type { SessionUser } from './session'

/**
 * The account's authenticator app (its set-up, kept in its sealed cookie, and the code that adds it) and the
 * removal of a factor; the identity service, the limits, the account and the session's renewal are stubbed.
 */

const stubs = vi.hoisted(() => ({
  offered: true,
  release: vi.fn(async (_outcome: string) => {}),
  limit: vi.fn(),
  readAccount: vi.fn(),
  startTotpEnrollment: vi.fn(),
  finalizeEnrollment: vi.fn(),
  withdrawMfa: vi.fn(),
  renewIdentitySession: vi.fn(async () => {}),
}))
vi.mock('./second-factor-kinds', () => ({ factorOffered: async () => stubs.offered }))
vi.mock('./identity-admin', async (original) => ({ ...(await original<object>()), readAccount: stubs.readAccount }))
vi.mock('./session', async (original) => ({ ...(await original<object>()), renewIdentitySession: stubs.renewIdentitySession }))
vi.mock('~/.server/identity', async (original) => ({
  ...(await original<object>()),
  getIdentity: () => ({
    startTotpEnrollment: stubs.startTotpEnrollment,
    finalizeEnrollment: stubs.finalizeEnrollment,
    withdrawMfa: stubs.withdrawMfa,
  }),
}))
vi.mock('~/.server/policy/rate-limit', async (original) => ({
  ...(await original<object>()),
  getRateLimits: () => ({ consumeEnrolStart: stubs.limit, consumeMfaCode: stubs.limit, consumeNewPassword: stubs.limit }),
}))
const { addTotp, qrSvg, removeFactor, totpSetup } = await import('./second-factors')

const context = { clientIp: '203.0.113.9', requestId: 'test' } as AppLoadContext
const USER: SessionUser = { uid: 'uid-1', email: 'ada@example.com', remembered: false, sessionKey: 'k', recentIdToken: 'recent-token' }
const NOT_RECENT = { ...USER, recentIdToken: null }
const request = (cookie = '') => new Request('http://localhost:3000/account/second-factor/totp', { headers: { Cookie: cookie } })
const CONFIRM_TOTP = '/account/confirm?next=%2Faccount%2Fsecond-factor%2Ftotp'
const STARTED = { sharedSecretKey: 'JBSWY3DPEHPK3PXPJBSW', verificationCodeLength: 6, hashingAlgorithm: 'SHA1', periodSec: 30, sessionInfo: 'enrol-session' }

/** The set-up shown once: the browser's cookie then holds its secret. */
async function setUp(): Promise<string> {
  stubs.startTotpEnrollment.mockResolvedValueOnce(STARTED)
  const shown = await totpSetup(request(), USER, { expired: false, issuer: 'Acme' }, context)
  expect(shown).toMatchObject({ kind: 'page', data: { setup: { secret: 'JBSW Y3DP EHPK 3PXP JBSW', digits: 6 }, failure: null } })
  return cookieHeader(shown.cookies ?? [])
}

beforeEach(() => {
  vi.clearAllMocks()
  stubs.offered = true
  stubs.limit.mockResolvedValue({ ok: true, release: stubs.release })
  stubs.readAccount.mockResolvedValue({ email: 'ada@example.com', emailVerified: true })
})

describe('the authenticator app set-up', () => {
  it('starts once, then shows the same secret from its cookie without asking the service again', async () => {
    const cookie = await setUp()
    const again = await totpSetup(request(cookie), USER, { expired: false, issuer: 'Acme' }, context)
    expect(again).toMatchObject({ data: { setup: { secret: 'JBSW Y3DP EHPK 3PXP JBSW' } } })
    expect(stubs.startTotpEnrollment).toHaveBeenCalledTimes(1)
    // Another account's browser cookie is not this account's set-up.
    stubs.startTotpEnrollment.mockResolvedValueOnce({ ...STARTED, sharedSecretKey: 'OTHERSECRETOTHERSECRE' })
    expect(await totpSetup(request(cookie), { ...USER, uid: 'uid-2' }, { expired: false, issuer: 'Acme' }, context)).toMatchObject({
      data: { setup: { secret: 'OTHE RSEC RETO THER SECR E' } },
    })
  })

  it('asks "Confirm it\'s you" first without a recent sign-in; an unverified address goes back to the account', async () => {
    expect(await totpSetup(request(), NOT_RECENT, { expired: false, issuer: 'Acme' }, context)).toEqual({ kind: 'redirect', location: CONFIRM_TOTP })
    stubs.readAccount.mockResolvedValueOnce({ email: 'ada@example.com', emailVerified: false })
    expect(await totpSetup(request(), USER, { expired: false, issuer: 'Acme' }, context)).toMatchObject({ kind: 'redirect', location: '/account' })
    expect(stubs.startTotpEnrollment).not.toHaveBeenCalled()
  })

  it('not offered by the project is a 404 that says so; over the limit, a 429 that says when', async () => {
    stubs.offered = false
    expect(await totpSetup(request(), USER, { expired: false, issuer: 'Acme' }, context)).toMatchObject({ status: 404, data: { failure: 'secondFactors.totpNotOffered' } })
    stubs.offered = true
    stubs.limit.mockResolvedValueOnce({ ok: false, retryAfterSeconds: 60 })
    expect(await totpSetup(request(), USER, { expired: false, issuer: 'Acme' }, context)).toMatchObject({ status: 429, retryAfter: 60, data: { failure: 'error.tooManyRequestsAt' } })
  })
})

describe('the code that adds it', () => {
  const add = (cookie: string, code: string, user = USER) => addTotp(request(cookie), user, { code, name: '  Phone app  ' }, context)

  it('adds the app under its trimmed name, keeps this browser signed in, and clears the set-up', async () => {
    const cookie = await setUp()
    stubs.finalizeEnrollment.mockResolvedValueOnce({ idToken: 'new-token' })
    const done = await add(cookie, '123 456')
    expect(done).toMatchObject({ kind: 'redirect', location: '/account?done=totp-added', cookies: [expect.stringMatching(/Max-Age=0/)] })
    expect(stubs.finalizeEnrollment).toHaveBeenCalledWith({ idToken: 'recent-token', kind: 'totp', sessionInfo: 'enrol-session', code: '123456', displayName: 'Phone app' })
    expect(stubs.renewIdentitySession).toHaveBeenCalledWith(expect.any(Request), USER, 'new-token')
    expect(stubs.release.mock.calls).toEqual([['success']])
  })

  it('a code of the wrong shape is refused before any call or count', async () => {
    const cookie = await setUp()
    expect(await add(cookie, '12345')).toEqual({ kind: 'page', data: { name: '  Phone app  ', codeError: 'mfa.codeFormat' }, status: 400 })
    expect(stubs.finalizeEnrollment).not.toHaveBeenCalled()
  })

  it('a wrong code counts as a failure and keeps the set-up; an expired session starts again', async () => {
    const cookie = await setUp()
    stubs.finalizeEnrollment.mockRejectedValueOnce(new IdentityError('auth/invalid-verification-code', 400))
    expect(await add(cookie, '000000')).toMatchObject({ status: 400, data: { codeError: 'mfa.wrongCode' } })
    expect(stubs.release.mock.calls).toEqual([['failure']])
    stubs.finalizeEnrollment.mockRejectedValueOnce(new IdentityError('auth/code-expired', 400))
    expect(await add(cookie, '000000')).toMatchObject({ kind: 'redirect', location: '/account/second-factor/totp?expired' })
  })

  it('without its set-up cookie, the set-up has expired; without a recent sign-in, "Confirm it\'s you"', async () => {
    expect(await add('', '123456')).toMatchObject({ kind: 'redirect', location: '/account/second-factor/totp?expired' })
    expect(await add('', '123456', NOT_RECENT)).toEqual({ kind: 'redirect', location: CONFIRM_TOTP })
  })
})

describe('removing a factor', () => {
  const remove = (user = USER) => removeFactor(request(), user, 'factor-1', context)

  it('withdraws it, keeps this browser signed in and says it is done', async () => {
    stubs.withdrawMfa.mockResolvedValueOnce({ idToken: 'new-token' })
    expect(await remove()).toEqual({ kind: 'redirect', location: '/account?done=factor-removed' })
    expect(stubs.withdrawMfa).toHaveBeenCalledWith('recent-token', 'factor-1')
    expect(stubs.renewIdentitySession).toHaveBeenCalledWith(expect.any(Request), USER, 'new-token')
  })

  it('asks "Confirm it\'s you" first, and again when the service wants a fresher sign-in', async () => {
    const confirm = { kind: 'redirect', location: '/account/confirm?next=%2Faccount%2Fsecond-factor%2Fremove%3Ffactor%3Dfactor-1' }
    expect(await remove(NOT_RECENT)).toEqual(confirm)
    stubs.withdrawMfa.mockRejectedValueOnce(new IdentityError('auth/requires-recent-login', 400))
    expect(await remove()).toEqual(confirm)
  })

  it('a factor already gone goes back to the account; the service down is said, the attempt not counted', async () => {
    stubs.withdrawMfa.mockRejectedValueOnce(new IdentityError('auth/multi-factor-info-not-found', 400))
    expect(await remove()).toEqual({ kind: 'redirect', location: '/account' })
    stubs.withdrawMfa.mockRejectedValueOnce(new IdentityError('auth/network-request-failed'))
    expect(await remove()).toMatchObject({ kind: 'page', status: 503 })
    expect(stubs.release.mock.calls).toEqual([['no-verdict']])
  })
})

describe('the QR code', () => {
  it('draws exactly the dark modules of the code, quiet zone included, a stroke per run', () => {
    const text = 'otpauth://totp/Acme:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme&algorithm=SHA1&digits=6&period=30'
    const svg = qrSvg(text)
    const { data, size } = encode(text, { border: 4 })
    expect(svg).toContain(`viewBox="0 0 ${size} ${size}"`)
    const drawn = data.map((row) => row.map(() => false))
    let [x, y] = [0, 0]
    for (const [, command, a, b] of /\sd="([^"]+)"/.exec(svg)![1]!.matchAll(/([Mmh])([\d.]+)(?: ([\d.]+))?/g)) {
      // A one-module stroke along the middle of its row.
      if (command === 'M') [x, y] = [Number(a), Number(b) - 0.5]
      else if (command === 'm') x += Number(a)
      else for (const end = x + Number(a); x < end; x++) drawn[y]![x] = true
    }
    expect(drawn).toEqual(data)
    expect(data[0]!.slice(0, 4).concat(data.slice(0, 4).map((row) => row[0]!))).not.toContain(true)
  })
})
