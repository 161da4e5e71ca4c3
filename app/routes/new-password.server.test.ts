import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'
import { IdentityError } from '~/.server/identity'
import { cookieHeader } from '../../tests/support/cookie-jar'

/**
 * The emailed reset link's page and its post, with the identity service, the limit and the sessions stubbed.
 * The link's code travels in the real sealed cookie: the GET that takes it from the address writes it, the
 * next request sends it back.
 */

const stubs = vi.hoisted(() => ({
  checkActionCode: vi.fn(),
  resetPassword: vi.fn(async (_code: string, _password: string) => {}),
  consumeNewPassword: vi.fn(),
  release: vi.fn(async (_outcome: string) => {}),
  uidOf: vi.fn(async (_email: string): Promise<string | null> => 'ada-uid'),
  revokeSessions: vi.fn(async (_uid: string) => {}),
}))
vi.mock('~/.server/identity', async (original) => ({
  ...(await original<object>()),
  getIdentity: () => ({ checkActionCode: stubs.checkActionCode, resetPassword: stubs.resetPassword }),
}))
vi.mock('~/.server/policy/rate-limit', async (original) => ({
  ...(await original<object>()),
  getRateLimits: () => ({ consumeNewPassword: stubs.consumeNewPassword }),
}))
vi.mock('~/.server/auth/identity-admin', async (original) => ({
  ...(await original<object>()),
  uidOf: stubs.uidOf,
  revokeSessions: stubs.revokeSessions,
}))
const { completePasswordReset, newPasswordPage } = await import('./new-password.server')

const ORIGIN = 'http://localhost:3000'
const context = { clientIp: '203.0.113.9', requestId: 'test', publicOrigin: ORIGIN } as AppLoadContext
const STRONG = 'violet-harbour-quietly-72'
const resetInfo = { requestType: 'PASSWORD_RESET', email: 'ada@example.com' }

/** A browser that followed the emailed link: the page took the code from the address into its cookie. */
async function followedLink(query = '') {
  const url = new URL(`/new-password?oobCode=the-code${query}`, ORIGIN)
  const taken = await newPasswordPage(new Request(url), url)
  if (taken.kind !== 'redirect') throw new Error(`the link was answered with ${taken.kind}`)
  return { taken, cookies: taken.cookies ?? [], cookie: cookieHeader(taken.cookies ?? []) }
}

const get = (cookie: string) => {
  const url = new URL('/new-password', ORIGIN)
  return newPasswordPage(new Request(url, { headers: { Cookie: cookie } }), url)
}
const post = (cookie: string, password = STRONG) => {
  const url = new URL('/new-password', ORIGIN)
  const request = new Request(url, { method: 'POST', headers: { Cookie: cookie } })
  return completePasswordReset(request, url, { password, confirmation: password }, context)
}

describe('the new-password page of an emailed link', () => {
  beforeEach(() => {
    vi.clearAllMocks()
    stubs.checkActionCode.mockResolvedValue(resetInfo)
    stubs.consumeNewPassword.mockResolvedValue({ ok: true, release: stubs.release })
  })

  it('takes the code out of the address into a cookie, keeps the redirect, and spends nothing', async () => {
    const { taken } = await followedLink('&redirect=%2Faccount')
    expect(taken).toMatchObject({ kind: 'redirect', status: 302, location: '/new-password?redirect=%2Faccount' })
    expect(taken.location).not.toContain('the-code')
    expect(stubs.checkActionCode).not.toHaveBeenCalled()
  })

  it("shows the form for the link's address, and a used or unknown link as such (400, cookie cleared)", async () => {
    const { cookie } = await followedLink()
    expect(await get(cookie)).toMatchObject({ kind: 'page', data: { state: 'form', email: 'ada@example.com' } })
    expect(stubs.checkActionCode).toHaveBeenCalledWith('the-code')
    stubs.checkActionCode.mockRejectedValue(new IdentityError('auth/invalid-action-code', 400))
    const used = await get(cookie)
    expect(used).toMatchObject({ kind: 'page', status: 400, data: { state: 'invalid' } })
    expect(used.cookies).toHaveLength(1)
    expect(await get('')).toMatchObject({ kind: 'page', status: 400, data: { state: 'invalid' } })
  })

  it('says the service is unavailable (503) when it cannot check the link, rather than calling the link bad', async () => {
    const { cookie } = await followedLink()
    stubs.checkActionCode.mockRejectedValue(new IdentityError('auth/internal-error', 500))
    expect(await get(cookie)).toMatchObject({ kind: 'error', status: 503 })
  })

  it('sets the password, releases the attempt, ends every session of the account, and says it is done', async () => {
    const { cookies, cookie } = await followedLink()
    const done = await post(cookie)
    expect(done).toMatchObject({ kind: 'redirect', location: '/new-password' })
    expect(stubs.resetPassword).toHaveBeenCalledWith('the-code', STRONG)
    expect(stubs.release.mock.calls).toEqual([['success']])
    expect(stubs.revokeSessions).toHaveBeenCalledWith('ada-uid')
    expect(await get(cookieHeader([...cookies, ...(done.cookies ?? [])]))).toMatchObject({ kind: 'page', data: { state: 'done' } })
  })

  it('answers 429 over the limit, and a post without the link cookie as an invalid link, changing nothing', async () => {
    const { cookie } = await followedLink()
    stubs.consumeNewPassword.mockResolvedValue({ ok: false, retryAfterSeconds: 60 })
    expect(await post(cookie)).toMatchObject({ kind: 'page', status: 429, data: { message: 'error.tooManyRequestsAt' } })
    stubs.consumeNewPassword.mockResolvedValue({ ok: true, release: stubs.release })
    expect(await post('')).toMatchObject({ kind: 'page', status: 400, data: { status: 'invalid-link' } })
    expect(stubs.checkActionCode).not.toHaveBeenCalled()
    expect(stubs.resetPassword).not.toHaveBeenCalled()
  })

  it('refuses a password the service calls weak with the reasons (400), the link kept', async () => {
    const { cookie } = await followedLink()
    stubs.resetPassword.mockRejectedValue(new IdentityError('auth/weak-password', 400))
    const refused = await post(cookie)
    expect(refused).toMatchObject({ kind: 'page', status: 400, data: { status: 'invalid' } })
    expect(refused.cookies ?? []).toEqual([])
    expect(stubs.revokeSessions).not.toHaveBeenCalled()
  })

  it('gives the attempt back when the service fails (503), but not on its refusal or an already used link', async () => {
    const { cookie } = await followedLink()
    stubs.resetPassword.mockRejectedValue(new IdentityError('auth/internal-error', 500))
    expect(await post(cookie)).toMatchObject({ kind: 'page', status: 503, data: { status: 'error', message: 'error.unexpected' } })
    expect(stubs.release.mock.calls).toEqual([['no-verdict']])
    stubs.release.mockClear()
    stubs.resetPassword.mockRejectedValue(new IdentityError('auth/user-disabled', 400))
    expect(await post(cookie)).toMatchObject({ kind: 'page', status: 400, data: { status: 'error' } })
    stubs.resetPassword.mockRejectedValue(new IdentityError('auth/expired-action-code', 400))
    expect(await post(cookie)).toMatchObject({ kind: 'page', status: 400, data: { status: 'invalid-link' } })
    expect(stubs.release).not.toHaveBeenCalled()
  })
})
