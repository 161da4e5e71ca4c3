import { describe, expect, it } from 'vitest'
import { logoutCookies } from './logout'

describe('logoutCookies', () => {
  it('expires the session and every flow cookie, and nothing the visitor keeps', () => {
    const expired = logoutCookies().map((line) => {
      expect(line).toMatch(/; Max-Age=0\b/)
      return line.slice(0, line.indexOf('='))
    })
    expect(expired.sort()).toEqual(
      [
        'action_code',
        'email_link',
        'email_sent',
        'mfa_enrollment',
        'mfa_pending',
        'passkey_challenge',
        'phone_enrolment',
        'reset_code',
        'reset_done',
        'session',
        'sso_state',
      ].sort(),
    )
  })
})
