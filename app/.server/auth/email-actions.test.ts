import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'
import { IdentityError, type ActionCodeInfo } from '~/.server/identity'
import { cookieHeader } from '../../../tests/support/cookie-jar'

/**
 * The /action guard for emailed links, through its real sealed cookie: a link's first GET, the page it then
 * shows, and the "Continue" that spends the code; the identity service, the flags and the email-link sign-in
 * are stubbed.
 */

const stubs = vi.hoisted(() => ({
  checkActionCode: vi.fn(),
  update: vi.fn(),
  emailLinkSignIn: true,
  completeEmailLinkSignIn: vi.fn(),
}))
vi.mock('~/.server/identity', async (original) => ({
  ...(await original<object>()),
  getIdentity: () => ({ checkActionCode: stubs.checkActionCode, update: stubs.update }),
}))
vi.mock('~/.server/ops/flags', () => ({ getFlags: async () => ({ emailLinkSignIn: stubs.emailLinkSignIn }) }))
vi.mock('./email-link', async (original) => ({
  ...(await original<object>()),
  completeEmailLinkSignIn: stubs.completeEmailLinkSignIn,
}))
const { applyEmailAction, emailActionPage, LINK_QUERY_MAX_LENGTH } = await import('./email-actions')

const context = { clientIp: '203.0.113.9', requestId: 'test', publicOrigin: 'http://localhost:3000' } as AppLoadContext
const ORIGIN = 'http://localhost:3000'
const get = (path: string, cookie = '') => new Request(`${ORIGIN}${path}`, { headers: { Cookie: cookie } })
const info = (requestType: ActionCodeInfo['requestType'], extra: Partial<ActionCodeInfo> = {}): ActionCodeInfo => ({
  requestType,
  email: 'ada@example.com',
  newEmail: null,
  secondFactor: null,
  ...extra,
})

/** A link's first GET, which moves the code into a cookie: the cookie the browser then carries. */
async function opened(query: string): Promise<string> {
  const first = await emailActionPage(get(`/action?${query}`), new URL(`${ORIGIN}/action?${query}`))
  expect(first).toMatchObject({ kind: 'redirect', status: 302 })
  return cookieHeader(first.cookies ?? [])
}
beforeEach(() => {
  vi.clearAllMocks()
  stubs.emailLinkSignIn = true
})

const pageAt = (cookie: string) => emailActionPage(get('/action', cookie), new URL(`${ORIGIN}/action`))

describe('a link opened (GET)', () => {
  it('moves the code into a cookie and reloads without it, the other parameters kept', async () => {
    const first = await emailActionPage(get('/'), new URL(`${ORIGIN}/action?mode=verifyEmail&oobCode=CODE&apiKey=k&lang=fr`))
    expect(first).toMatchObject({ kind: 'redirect', location: '/action?lang=fr', status: 302 })
    expect(first.cookies?.join()).not.toContain('CODE')
    expect(stubs.checkActionCode).not.toHaveBeenCalled()
  })

  it('sends a reset link on to the new-password page, without its mode and API key', async () => {
    const next = await emailActionPage(get('/'), new URL(`${ORIGIN}/action?mode=resetPassword&oobCode=CODE&apiKey=k`))
    expect(next).toEqual({ kind: 'redirect', location: '/new-password?oobCode=CODE', status: 302 })
  })

  it.each([
    ['an unknown mode', 'mode=deleteEverything&oobCode=C&apiKey=k', null],
    ['no code', 'mode=verifyEmail&apiKey=k', 'verifyEmail'],
    ['no API key', 'mode=verifyEmail&oobCode=C', 'verifyEmail'],
    ['a query longer than any link we send', `mode=verifyEmail&oobCode=C&apiKey=k&x=${'a'.repeat(LINK_QUERY_MAX_LENGTH)}`, 'verifyEmail'],
  ])('%s is an invalid link, said as such', async (_, query, kind) => {
    expect(await emailActionPage(get('/'), new URL(`${ORIGIN}/action?${query}`))).toEqual({
      kind: 'page',
      data: { page: { mode: 'invalid', kind } },
      status: 400,
    })
  })

  it('a sign-in link while email-link sign-in is off shows an invalid link of no kind, and is not checked', async () => {
    stubs.emailLinkSignIn = false
    const cookie = await opened('mode=signIn&oobCode=CODE&apiKey=k')
    expect(await pageAt(cookie)).toMatchObject({ status: 400, data: { page: { mode: 'invalid', kind: null } } })
    expect(stubs.checkActionCode).not.toHaveBeenCalled()
  })
})

describe('the page a link shows', () => {
  it('checks the code without spending it and names the address', async () => {
    const cookie = await opened('mode=verifyEmail&oobCode=CODE&apiKey=k')
    stubs.checkActionCode.mockResolvedValueOnce(info('VERIFY_EMAIL'))
    expect(await pageAt(cookie)).toEqual({ kind: 'page', data: { page: { mode: 'verifyEmail', email: 'ada@example.com' } } })
    expect(stubs.checkActionCode).toHaveBeenCalledWith('CODE')
    expect(stubs.update).not.toHaveBeenCalled()
  })

  it('a code of another kind than its link says is invalid, and the cookie is cleared', async () => {
    const cookie = await opened('mode=verifyEmail&oobCode=CODE&apiKey=k')
    stubs.checkActionCode.mockResolvedValueOnce(info('PASSWORD_RESET'))
    const answer = await pageAt(cookie)
    expect(answer).toMatchObject({ status: 400, data: { page: { mode: 'invalid', kind: 'verifyEmail' } } })
    expect(answer.cookies).toHaveLength(1)
  })

  it('a change of address with no new address is invalid', async () => {
    const cookie = await opened('mode=verifyAndChangeEmail&oobCode=CODE&apiKey=k')
    stubs.checkActionCode.mockResolvedValueOnce(info('VERIFY_AND_CHANGE_EMAIL'))
    expect(await pageAt(cookie)).toMatchObject({ status: 400 })
  })

  it('a used or expired code is invalid; the service unavailable is said as such, the cookie kept', async () => {
    const cookie = await opened('mode=recoverEmail&oobCode=CODE&apiKey=k')
    stubs.checkActionCode.mockRejectedValueOnce(new IdentityError('auth/expired-action-code', 400))
    expect(await pageAt(cookie)).toMatchObject({ status: 400, data: { page: { mode: 'invalid', kind: 'recoverEmail' } } })
    stubs.checkActionCode.mockRejectedValueOnce(new IdentityError('auth/network-request-failed'))
    const down = await pageAt(cookie)
    expect(down).toMatchObject({ kind: 'error', status: 503 })
    expect(down.cookies).toBeUndefined()
  })

  it('without the cookie, the bare /action is an invalid link', async () => {
    expect(await pageAt('')).toMatchObject({ status: 400, data: { page: { mode: 'invalid', kind: null } } })
  })
})

describe('"Continue" (POST)', () => {
  const post = (cookie: string, query = '') => new Request(`${ORIGIN}/action${query}`, { method: 'POST', headers: { Cookie: cookie } })

  it('spends the code, says it is done and clears the cookie', async () => {
    const cookie = await opened('mode=verifyEmail&oobCode=CODE&apiKey=k')
    stubs.checkActionCode.mockResolvedValueOnce(info('VERIFY_EMAIL'))
    stubs.update.mockResolvedValueOnce({})
    const done = await applyEmailAction(post(cookie), '', context)
    expect(done).toMatchObject({
      kind: 'page',
      data: { result: { status: 'done', mode: 'verifyEmail', email: 'ada@example.com', newEmail: null, continueTo: null } },
    })
    expect(done.cookies).toHaveLength(1)
    expect(stubs.update).toHaveBeenCalledWith({ oobCode: 'CODE' })
  })

  it('a code spent in between is an invalid link; another refusal is said on the page', async () => {
    const cookie = await opened('mode=verifyEmail&oobCode=CODE&apiKey=k')
    stubs.checkActionCode.mockResolvedValue(info('VERIFY_EMAIL'))
    stubs.update.mockRejectedValueOnce(new IdentityError('auth/invalid-action-code', 400))
    expect(await applyEmailAction(post(cookie), '', context)).toMatchObject({ status: 400, data: { result: { status: 'invalid-link' } } })
    stubs.update.mockRejectedValueOnce(new IdentityError('auth/user-disabled', 400))
    expect(await applyEmailAction(post(cookie), '', context)).toMatchObject({
      data: { result: { status: 'error', email: 'ada@example.com' } },
    })
  })

  it('a sign-in link signs in with the address typed when this browser did not ask for it', async () => {
    const cookie = await opened('mode=signIn&oobCode=CODE&apiKey=k')
    stubs.completeEmailLinkSignIn.mockResolvedValueOnce({ ok: true, setCookies: ['session=1'], location: '/account' })
    const signedIn = await applyEmailAction(post(cookie, '?continueUrl=x'), 'typed@example.com', context)
    expect(signedIn).toMatchObject({ kind: 'redirect', location: '/account' })
    expect(signedIn.cookies).toHaveLength(3)
    expect(stubs.completeEmailLinkSignIn).toHaveBeenCalledWith(
      expect.any(Request),
      { email: 'typed@example.com', oobCode: 'CODE', continueUrl: 'x', remember: false },
      context,
    )
  })

  it('a sign-in link with no address typed asks for one, and sends nothing', async () => {
    const cookie = await opened('mode=signIn&oobCode=CODE&apiKey=k')
    expect(await applyEmailAction(post(cookie), '', context)).toMatchObject({
      status: 400,
      data: { result: { status: 'error', message: 'validation.emailRequired' } },
    })
    expect(stubs.completeEmailLinkSignIn).not.toHaveBeenCalled()
  })

  it('without the cookie, nothing is spent', async () => {
    expect(await applyEmailAction(post(''), '', context)).toMatchObject({ status: 400, data: { result: { status: 'invalid-link', kind: null } } })
    expect(stubs.update).not.toHaveBeenCalled()
  })
})
