import { describe, expect, inject, it } from 'vitest'
import { emulatorAdmin } from '../../dev/emulator'
import { onPhonePage, PHONE_PATH } from '../support/phone-page'
import { ownPortal } from '../support/portal'

/**
 * No SMS pumping through enrolment (ADR 042): codes sent to one number being added as a second
 * factor are counted from every account and client (RATE_LIMIT_ENROL_SMS_PER_NUMBER, 3 per hour by
 * default), against the real emulator; the refusal is translated and says when it lets go.
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Phone-Limits-2026'

const portal = ownPortal({ TRUST_PROXY: '1' })

/** A verified account signed in and confirmed from its own client address, on the phone page. */
const onPhonePageFrom = (ip: string, language: 'en' | 'fr') => onPhonePage(portal.url, admin, { ip, password: PASSWORD, language })

const codesTo = async (phone: string) => (await admin.verificationCodes()).filter((c) => c.phoneNumber === phone).length

describe('SMS codes to a number being added', () => {
  it('stop at the per-number limit, whatever the account and the client, with a translated message', async () => {
    const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`
    for (let i = 0; i < 3; i++) {
      const client = await onPhonePageFrom(`198.51.100.${60 + i}`, 'en')
      const sent = await client.submit(PHONE_PATH, { phone }, { remember: true })
      expect(sent.status).toBe(303)
      expect(sent.headers.get('location')).toBe(PHONE_PATH)
    }
    expect(await codesTo(phone)).toBe(3)

    const english = await (await onPhonePageFrom('198.51.100.70', 'en')).submit(PHONE_PATH, { phone })
    expect(english.status).toBe(429)
    // When it lets go, in UTC from the server (the page's script shows the visitor's own time).
    expect(english.html).toMatch(/No more codes can be sent for now\. You can ask for a new one at <time date[tT]ime="[\d-]+T[\d:]+\.000Z">\d{1,2}:\d\d\s[AP]M UTC<\/time>\./u)
    // What was typed stays in the field.
    expect(english.html).toContain(`value="${phone}"`)

    const french = await (await onPhonePageFrom('198.51.100.71', 'fr')).submit(PHONE_PATH, { phone })
    expect(french.status).toBe(429)
    expect(french.html).toMatch(/Vous pourrez en demander un nouveau à <time date[tT]ime="[^"]+">\d\d:\d\d UTC<\/time>\./)
    expect(await codesTo(phone)).toBe(3)

    // Another number from the same accounts' clients is not held back by this one.
    const other = `+1556${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`
    const elsewhere = await (await onPhonePageFrom('198.51.100.72', 'en')).submit(PHONE_PATH, { phone: other })
    expect(elsewhere.status).toBe(303)
  })
})
