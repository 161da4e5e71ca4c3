import { describe, expect, inject, it, vi } from 'vitest'
import { emulatorAdmin, uniqueEmail, uniquePhone } from '../../dev/emulator'
import { addresslessSessionCookie, sessionCookieFor } from '../support/session-cookie'

/**
 * An account page that does not apply to this account sends it back to `/account` (302, never
 * stored): the password, deletion and phone pages for an account without an address, and the
 * removal page for a factor the account does not have.
 */

// The product makes this file's sessions, in the run's shared store (tests/support/session-cookie.ts).
const emulator = await vi.hoisted(async () => (await import('../support/emulator-env')).pointAtEmulator())
const admin = emulatorAdmin(emulator)
const portal = inject('portal')
const PASSWORD = 'Correct-Horse-42'

const get = (path: string, cookie: string) => fetch(new URL(path, portal.url), { redirect: 'manual', headers: { Cookie: cookie } })

function expectBackToAccount(answer: Response) {
  expect(answer.status).toBe(302)
  expect(answer.headers.get('location')).toBe('/account')
  expect(answer.headers.get('cache-control')).toContain('no-store')
}

describe('account pages that do not apply', () => {
  it.each(['/account/password', '/account/delete', '/account/second-factor/phone'])(
    '%s, for an account without an address: back to /account',
    async (path) => {
      expectBackToAccount(await get(path, await addresslessSessionCookie(emulator)))
    },
  )

  it('the removal page of a factor this account does not have: back to /account', async () => {
    const { localId, idToken } = await admin.createUser(uniqueEmail('remove-unknown'), PASSWORD)
    const cookie = await sessionCookieFor(idToken)
    const [factor] = await admin.enrollSms(localId, [{ phoneNumber: uniquePhone() }])
    for (const id of ['', 'no-such-factor', '../account', `${factor!.mfaEnrollmentId}x`]) {
      expectBackToAccount(await get(`/account/second-factor/remove?factor=${encodeURIComponent(id)}`, cookie))
    }
    // Its own factor is another matter: its removal page (signed in a moment ago: no confirmation asked).
    const own = await get(`/account/second-factor/remove?factor=${factor!.mfaEnrollmentId}`, cookie)
    expect(own.status).toBe(200)
  })
})
