import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'
import type { MfaRequired } from '~/.server/identity'
import type { Pending } from './pending'
import { cookieHeader } from '../../../../tests/support/cookie-jar'

/**
 * The second-factor step from its start at sign-in to the choice of a factor and a resend, through its real
 * sealed cookie; sending an SMS and checking a code are stubbed (verify.test.ts checks codes).
 */

const stubs = vi.hoisted(() => ({
  sendSms: vi.fn(async (p: { chosen: string | null; session: string | null; sentAt: number | null }, _context: object, _captcha?: string) => {
    if (p.chosen !== 'phone-1') return
    p.session = 'sms-session'
    p.sentAt = Math.floor(Date.now() / 1000)
  }),
  verify: vi.fn(async () => ({ kind: 'redirect' as const, location: '/account' })),
}))
vi.mock('./sms', () => ({ sendSms: stubs.sendSms }))
vi.mock('./verify', async (original) => ({ ...(await original<object>()), verify: stubs.verify }))
const { beginSecondFactor, secondFactorAction, secondFactorView } = await import('./index')

const context = { clientIp: '203.0.113.9', requestId: 'test', publicOrigin: 'http://localhost:3000' } as AppLoadContext
const TOTP = { kind: 'totp', id: 'totp-1', displayName: null } as const
const PHONE = { kind: 'phone', id: 'phone-1', displayName: null, phone: '+33*******78' } as const
const mfa = (factors: MfaRequired['factors']): MfaRequired => ({ pendingCredential: 'pending-credential', factors, email: null })
const request = (cookie = '', method = 'GET') => new Request('http://localhost:3000/second-factor', { method, headers: { Cookie: cookie } })

/** A browser whose password sign-in was answered "second factor required", and the page it then shows. */
async function started(factors: MfaRequired['factors'], redirect: string | null = null) {
  const checked = redirect ? { param: redirect, url: `http://localhost:3000${redirect}` } : null
  const first = { mfa: mfa(factors), method: 'password', email: 'ada@example.com', redirect: checked, remember: false } as const
  const begun = await beginSecondFactor(request(), first, context)
  const jar = new Map<string, string>()
  const cookie = cookieHeader(begun.setCookies, jar)
  return { begun, cookie, jar, view: () => secondFactorView(request(cookie)) }
}
const act = (cookie: string, form: Partial<{ intent: string; factor: string; code: string; captchaResponse: string }>) =>
  secondFactorAction(request(cookie, 'POST'), { intent: '', factor: '', code: '', captchaResponse: '', ...form }, context)

describe('the second-factor step', () => {
  beforeEach(() => vi.clearAllMocks())

  it('with one factor, asks for its code at once; the way back keeps the address and the redirect', async () => {
    const { begun, view } = await started([TOTP], '/account')
    expect(begun.location).toBe('/second-factor')
    expect(await view()).toMatchObject({
      kind: 'page',
      data: { view: { step: 'code', factor: TOTP, several: false, redirect: '/account', back: '/?email=ada%40example.com&redirect=%2Faccount' } },
    })
    expect(stubs.sendSms).toHaveBeenCalledTimes(1)
  })

  it('with several, lets the visitor choose; choosing the phone sends its SMS', async () => {
    const { cookie, jar, view } = await started([TOTP, PHONE])
    expect(await view()).toMatchObject({ data: { view: { step: 'choose', factors: [TOTP, PHONE] } } })
    const chosen = await act(cookie, { intent: 'choose', factor: 'phone-1' })
    expect(chosen).toMatchObject({ kind: 'redirect', location: '/second-factor' })
    expect((stubs.sendSms.mock.calls.at(-1)![0] as Pending).chosen).toBe('phone-1')
    const after = cookieHeader(chosen.cookies ?? [], jar)
    expect(await secondFactorView(request(after))).toMatchObject({ data: { view: { step: 'code', factor: PHONE, sent: true, several: true } } })
    // "Use another method" goes back to the choice.
    const another = await act(after, { intent: 'another' })
    expect(await secondFactorView(request(cookieHeader(another.cookies ?? [], jar)))).toMatchObject({ data: { view: { step: 'choose' } } })
  })

  it('refuses a factor that is not the account\'s: back to the choice, nothing sent', async () => {
    const { cookie, jar } = await started([TOTP, PHONE])
    const sends = stubs.sendSms.mock.calls.length
    const refused = await act(cookie, { intent: 'choose', factor: 'someone-elses' })
    expect(await secondFactorView(request(cookieHeader(refused.cookies ?? [], jar)))).toMatchObject({ data: { view: { step: 'choose' } } })
    expect(stubs.sendSms.mock.calls.length).toBe(sends)
  })

  it('sends the SMS again only after the wait, and says so', async () => {
    const { cookie, jar } = await started([PHONE])
    const early = await act(cookie, { intent: 'resend' })
    expect(stubs.sendSms).toHaveBeenCalledTimes(1)
    expect(await secondFactorView(request(cookieHeader(early.cookies ?? [], new Map(jar))))).toMatchObject({
      data: { view: { notice: 'mfa.resendWait' } },
    })
    vi.useFakeTimers({ now: Date.now() + 31_000, toFake: ['Date'] })
    try {
      const resent = await act(cookie, { intent: 'resend' })
      expect(stubs.sendSms).toHaveBeenCalledTimes(2)
      expect(await secondFactorView(request(cookieHeader(resent.cookies ?? [], jar)))).toMatchObject({ data: { view: { notice: 'mfa.resent' } } })
    } finally {
      vi.useRealTimers()
    }
  })

  it('checks a posted code, and sends a browser without the step back to sign in', async () => {
    const { cookie } = await started([TOTP])
    expect(await act(cookie, { code: '123456' })).toEqual({ kind: 'redirect', location: '/account' })
    expect(stubs.verify).toHaveBeenCalledWith(expect.any(Request), expect.objectContaining({ chosen: 'totp-1' }), '123456', context)
    expect(await act('', { code: '123456' })).toMatchObject({ kind: 'redirect', location: '/?mfaError=expired' })
    expect(secondFactorView(request())).toMatchObject({ kind: 'redirect', status: 302, location: '/?mfaError=expired' })
    expect(stubs.verify).toHaveBeenCalledTimes(1)
  })
})
