import { afterEach, describe, expect, it, vi } from 'vitest'
import { cookieHeader } from '../../../tests/support/cookie-jar'
import { getConfig } from '~/.server/config'
import { rememberSent, resendable, sentView } from './email-sent'

/** The email this browser just asked for, through its real sealed cookie. */

const ORIGIN = 'http://localhost:3000'
const request = (cookie = '') => new Request(`${ORIGIN}/forgot-password`, { headers: { Cookie: cookie } })
/** The Cookie header of a browser that asked for an email of `kind` to `email` now. */
const asked = (email: string, kind?: Parameters<typeof rememberSent>[2], cookie = '') => {
  const jar = new Map(cookie ? cookie.split('; ').map((c) => [c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1)]) : [])
  return cookieHeader(rememberSent(request(cookie), email, kind), jar)
}
const wait = () => getConfig().resendWaitSeconds

afterEach(() => vi.useRealTimers())

describe('the email this browser asked for', () => {
  it('is nothing when it asked for none', () => {
    expect(sentView(request())).toEqual({ address: null, resendIn: 0, sentAt: null })
    expect(resendable(request())).toBeNull()
  })

  it('shows the address as typed, when it went, and the wait before it may go again', () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 12, 0, 0) })
    const cookie = asked(' Ada@Example.com ', 'sign-up')
    expect(sentView(request(cookie), 'sign-up')).toEqual({
      address: ' Ada@Example.com ',
      resendIn: wait(),
      sentAt: Date.UTC(2026, 10, 28, 12, 0, 0) / 1000,
    })
  })

  it('is read by the page of its own kind only: the last one asked for wins', () => {
    const reset = asked('ada@example.com')
    expect(sentView(request(reset)).address).toBe('ada@example.com')
    expect(sentView(request(reset), 'verify').address).toBeNull()
    const link = asked('bob@example.com', 'sign-in-link', reset)
    expect(sentView(request(link), 'sign-in-link').address).toBe('bob@example.com')
    expect(sentView(request(link)).address).toBeNull()
  })

  it('may be sent again only after the wait: before, the time it may', () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 12, 0, 0) })
    const cookie = asked('ada@example.com', 'email-change')
    // 30 s later, said as the minute a clock shows: 12:01.
    expect(wait()).toBe(30)
    expect(resendable(request(cookie), 'email-change')).toEqual({ retryAt: Date.UTC(2026, 10, 28, 12, 1, 0) })
    vi.setSystemTime(Date.UTC(2026, 10, 28, 12, 0, wait() - 1))
    expect(resendable(request(cookie), 'email-change')).toHaveProperty('retryAt')
    vi.setSystemTime(Date.UTC(2026, 10, 28, 12, 0, wait()))
    expect(resendable(request(cookie), 'email-change')).toEqual({ email: 'ada@example.com' })
    expect(resendable(request(cookie), 'reset')).toBeNull()
  })

  it('is read in no other browser', () => {
    const mine = asked('ada@example.com')
    const theirs = asked('eve@example.com')
    const sealed = (cookie: string) => cookie.split('; ').find((c) => c.startsWith('email_sent='))!
    const csrf = (cookie: string) => cookie.split('; ').find((c) => !c.startsWith('email_sent='))!
    expect(sentView(request(`${csrf(theirs)}; ${sealed(mine)}`)).address).toBeNull()
    expect(sentView(request(`${csrf(mine)}; ${sealed(mine)}`)).address).toBe('ada@example.com')
  })
})
