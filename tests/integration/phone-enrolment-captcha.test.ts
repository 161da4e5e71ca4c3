import { afterAll, beforeAll, expect, inject, it } from 'vitest'
import { emulatorAdmin } from '../../dev/emulator'
import { startMfaIdentity, type MfaIdentity } from '../support/mfa-identity'
import { onPhonePage, PHONE_PATH } from '../support/phone-page'
import { ownPortal } from '../support/portal'

/**
 * Where the project enforces reCAPTCHA for phones (the loopback answers ENFORCE for PHONE_PROVIDER;
 * every other call goes to the emulator), adding a phone without JavaScript follows the sign-in
 * step's rule (ADR 020, ADR 042): the page says the SMS needs JavaScript, and a number posted
 * without a token is refused before any call to the service.
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Phone-Captcha-2026'
const NEEDS_JS = 'Sending the code by SMS needs a security check that requires JavaScript. Please turn JavaScript on.'

let identity: MfaIdentity

beforeAll(async () => {
  identity = await startMfaIdentity(emulator.origin)
})
const portal = ownPortal(() => ({ FIREBASE_AUTH_EMULATOR_HOST: identity.host, TRUST_PROXY: '1' }))

afterAll(async () => {
  await identity?.close()
})

it('without JavaScript, "Send code" says the SMS needs it and sends nothing', async () => {
  const client = await onPhonePage(portal.url, admin, { ip: '198.51.100.90', password: PASSWORD })
  const page = client.html
  expect(page).toContain(`<noscript><p class="alert alert-error">${NEEDS_JS}</p></noscript>`)
  expect(page).toMatch(/<button type="submit" class="button-primary" disabled="">Send code<\/button>/)

  await client.load(PHONE_PATH)
  const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`
  const refused = await client.submit(PHONE_PATH, { phone })
  expect(refused.status).toBe(400)
  expect(refused.html).toContain(NEEDS_JS)
  expect((await admin.verificationCodes()).filter((c) => c.phoneNumber === phone)).toEqual([])
})
