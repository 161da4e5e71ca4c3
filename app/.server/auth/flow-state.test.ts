import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { COOKIES, type CookieSpec, type SealedCookie } from '~/.server/cookies'
import { flowCookie } from './flow-state'

const ORIGIN = 'http://localhost:3000'
const Schema = z.object({ phone: z.string(), session: z.string(), expires: z.number() })
const pending = flowCookie(COOKIES.phoneEnrolment, Schema, { until: (v) => v.expires })

/** A browser: its cookie jar, fed by Set-Cookie values. */
class Browser {
  jar = new Map<string, string>()
  take(setCookies: string[]) {
    for (const line of setCookies) {
      const pair = line.split(';')[0]!
      this.jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1))
    }
    return this
  }
  request() {
    return new Request(`${ORIGIN}/`, { headers: { Cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ') } })
  }
}

const now = () => Math.floor(Date.now() / 1000)
const value = () => ({ phone: '+15550100100', session: 'sms-session-of-the-identity-service', expires: now() + 120 })

describe('flowCookie', () => {
  it('gives the first CSRF token (the binding) then the cookie, and reads the value back in that browser', () => {
    const browser = new Browser()
    const written = value()
    const setCookies = pending.write(browser.request(), written)
    expect(setCookies).toHaveLength(2)
    expect(setCookies[0]).toMatch(/^csrf=/)
    // Its lifetime ends with the value's own, not the cookie's 10 minutes.
    expect(setCookies[1]).toMatch(/^phone_enrolment=[\w-]+; Path=\/; SameSite=Lax; Max-Age=\d+; HttpOnly$/)
    const maxAge = Number(/Max-Age=(\d+)/.exec(setCookies[1]!)![1])
    expect(maxAge).toBeLessThanOrEqual(120)
    expect(maxAge).toBeGreaterThan(60)
    expect(pending.read(browser.take(setCookies).request())).toEqual(written)
    // A browser with its token already gets the cookie alone.
    expect(pending.write(browser.request(), written)).toHaveLength(1)
  })

  it('reads as absent in another browser, with its own token or none', () => {
    const browser = new Browser()
    browser.take(pending.write(browser.request(), value()))
    const other = new Browser()
    other.take(flowCookie(COOKIES.resetCode, z.string()).write(other.request(), 'x'))
    other.jar.set('phone_enrolment', browser.jar.get('phone_enrolment')!)
    expect(pending.read(other.request())).toBeNull()
    other.jar.delete('csrf')
    expect(pending.read(other.request())).toBeNull()
  })

  it('reads as absent under another flow, with another shape, or in the older signed format', () => {
    const browser = new Browser()
    browser.take(pending.write(browser.request(), value()))
    const sealed = browser.jar.get('phone_enrolment')!
    browser.jar.set('mfa_pending', sealed)
    expect(flowCookie(COOKIES.mfaPending, z.unknown()).read(browser.request())).toBeNull()
    expect(flowCookie(COOKIES.phoneEnrolment, z.object({ other: z.string() })).read(browser.request())).toBeNull()
    const older = `${now() + 600}.${Buffer.from(JSON.stringify(value())).toString('base64url')}.${'A'.repeat(43)}`
    browser.jar.set('phone_enrolment', older)
    expect(pending.read(browser.request())).toBeNull()
  })

  it('clears with Max-Age=0', () => {
    expect(pending.clear()).toBe('phone_enrolment=; Path=/; SameSite=Lax; Max-Age=0; HttpOnly')
  })

  it('never shows what a flow carries: no cookie value contains its plaintext, however decoded', () => {
    const flows = (Object.values(COOKIES) as CookieSpec[]).filter((c): c is SealedCookie => c.sealedAs !== null)
    expect(flows.map((c) => c.base).sort()).toEqual([
      'action_code',
      'email_link',
      'email_sent',
      'logout_done',
      'mfa_enrollment',
      'mfa_pending',
      'passkey_challenge',
      'phone_enrolment',
      'reset_code',
      'reset_done',
      'sso_state',
    ])
    const secret = { oobCode: 'oob-code-of-an-emailed-link', phone: '+15550100100', session: 'sms-session-info' }
    for (const cookie of flows) {
      const browser = new Browser()
      const written = flowCookie(cookie, z.unknown()).write(browser.request(), secret).at(-1)!
      const sent = decodeURIComponent(written.split(';')[0]!.split('=')[1]!)
      const readings = [
        sent,
        ...[sent, ...sent.split('.')].map((part) => Buffer.from(part, 'base64url').toString('latin1')),
      ]
      for (const reading of readings) {
        for (const plain of Object.values(secret)) expect(reading, cookie.base).not.toContain(plain)
      }
    }
  })
})
