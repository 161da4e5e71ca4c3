import { describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail, uniquePhone } from '../../dev/emulator'
import { browserAt } from '../support/http-browser'
import { onPhonePage, PHONE_PATH } from '../support/phone-page'
import { ownPortal } from '../support/portal'

/**
 * Every flow cookie is encrypted (ADR 047): what it carries (the phone number and SMS session of an
 * enrolment, an emailed code) cannot be read from the browser, whichever way its value is decoded.
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Opaque-Cookies-2026'

const portal = ownPortal({ TRUST_PROXY: '1' })

/** The value as sent, URI-decoded, and every dot-separated part of it read as base64url. */
function readings(value: string): string[] {
  const decoded = decodeURIComponent(value)
  const parts = [decoded, ...decoded.split('.')].map((part) => Buffer.from(part, 'base64url').toString('utf8'))
  return [value, decoded, ...parts]
}

function expectOpaque(value: string | undefined, secrets: string[]) {
  expect(value).toBeTruthy()
  for (const reading of readings(value!)) {
    for (const secret of secrets) expect(reading, `the cookie reveals ${secret}`).not.toContain(secret)
  }
}

describe('flow cookies reveal nothing they carry', () => {
  it('phone_enrolment: neither the number nor the SMS session', async () => {
    const client = await onPhonePage(portal.url, admin, { ip: '198.51.100.90', password: PASSWORD })
    const phone = uniquePhone()
    expect((await client.submit(PHONE_PATH, { phone }, { remember: true })).status).toBe(303)
    const sent = (await admin.verificationCodes()).find((c) => c.phoneNumber === phone)
    expect(sent?.sessionInfo).toBeTruthy()
    // The number as typed, and its digits alone.
    expectOpaque(client.jar.get('phone_enrolment'), [phone, phone.slice(1), sent!.sessionInfo.slice(0, 24)])
  })

  it('reset_code: not the emailed code', async () => {
    const email = uniqueEmail('opaque-reset')
    await admin.createUser(email, PASSWORD)
    const client = await browserAt(portal.url, '198.51.100.91')
    await client.load('/forgot-password')
    expect((await client.submit('/forgot-password', { email })).status).toBe(303)
    const { oobCode } = await admin.emailed(email, 'PASSWORD_RESET')
    const keep = await fetch(`${portal.url}/new-password?oobCode=${encodeURIComponent(oobCode)}`, {
      redirect: 'manual',
      headers: { Cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    })
    const cookie = keep.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .find((c) => c.startsWith('reset_code='))
    expectOpaque(cookie?.slice('reset_code='.length), [oobCode, oobCode.slice(0, 16)])
  })
})
