import { afterAll, beforeAll, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { startMfaIdentity, type MfaIdentity } from '../support/mfa-identity'
import { browser } from '../support/ip-browser'
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
const PHONE_PATH = '/account/second-factor/phone'
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
  const email = uniqueEmail('phone-captcha')
  const { localId } = await admin.createUser(email, PASSWORD)
  await admin.verifyEmail(localId)
  const client = await browser(portal.url, '198.51.100.90')
  expect((await client.signIn(email, PASSWORD, { remember: true })).status).toBe(303)
  expect((await client.confirm(PASSWORD, PHONE_PATH)).headers.get('location')).toBe(PHONE_PATH)

  const page = await (
    await fetch(`${portal.url}${PHONE_PATH}`, {
      headers: {
        'X-Forwarded-For': '198.51.100.90',
        'Accept-Language': 'en',
        Cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    })
  ).text()
  expect(page).toContain(`<noscript><p class="alert alert-error">${NEEDS_JS}</p></noscript>`)
  expect(page).toMatch(/<button type="submit" class="button-primary" disabled="">Send code<\/button>/)

  await client.load(PHONE_PATH)
  const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`
  const refused = await client.post(PHONE_PATH, { phone })
  expect(refused.status).toBe(400)
  expect(refused.html).toContain(NEEDS_JS)
  expect((await admin.verificationCodes()).filter((c) => c.phoneNumber === phone)).toEqual([])
})
