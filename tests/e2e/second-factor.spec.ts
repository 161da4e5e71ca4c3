import type { BrowserContext, Page } from '@playwright/test'
import { type emulatorAdmin, uniqueEmail } from '../support/emulator'
import { startPortal, type Portal } from '../support/portal'
import { expect, test as base } from './fixtures'

/**
 * The second factor at sign-in (issue 15, ADR 019) against the Firebase Auth emulator, which
 * speaks SMS second factors: it "sends" its codes to `/emulator/v1/projects/{id}/verificationCodes`.
 * Every way of signing in ends on the same step: password, email link and single sign-on.
 * A portal of its own, with email-link sign-in and single sign-on on.
 */

const PASSWORD = 'Correct-Horse-42'
type Admin = ReturnType<typeof emulatorAdmin>
const emulatorOrigin = () => process.env.EMULATOR_ORIGIN!

const test = base.extend<object, { mfaPortal: Portal }>({
  mfaPortal: [
    async ({}, use) => {
      const portal = await startPortal({
        FIREBASE_AUTH_EMULATOR_HOST: new URL(emulatorOrigin()).host,
        FIREBASE_PROJECT_ID: process.env.EMULATOR_PROJECT_ID!,
        FLAG_EMAIL_LINK_SIGN_IN: 'true',
        FLAG_SSO: 'true',
        SSO_PROVIDER_ID: 'google.com',
        // Every test comes from 127.0.0.1: the per-client limits are tested on a portal of their own.
        RATE_LIMIT_SIGNIN_PER_IP: '10000',
        RATE_LIMIT_RESET_PER_IP: '10000',
        RATE_LIMIT_MFA_PER_IP: '10000',
      })
      await use(portal)
      await portal.stop()
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ mfaPortal }, use) => use(mfaPortal.url),
})

/** A phone number no other test uses, so the emulator's code list is read without a clash. */
function uniquePhone(): string {
  return `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`
}
const masked = (phone: string) => phone.replace(/\d(?=(?:\D*\d){4})/g, '*')

/** A password account with these SMS second factors. */
async function mfaAccount(admin: Admin, phones: Array<{ phoneNumber: string; displayName?: string }>) {
  const email = uniqueEmail('mfa')
  const { localId } = await admin.createUser(email, PASSWORD)
  await admin.enrollSms(localId, phones)
  return email
}

/** A code the emulator did not send: the right one with its last digit changed. */
const wrongCodeFor = (code: string) => `${code.slice(0, 5)}${(Number(code[5]) + 1) % 10}`

async function sessionCookie(context: BrowserContext) {
  return (await context.cookies()).find((c) => c.name === 'session')
}

const LABELS = {
  fr: {
    email: 'E-mail',
    password: 'Mot de passe',
    signIn: 'Se connecter',
    step: 'Vérification en deux étapes',
    code: 'Code de vérification',
    verify: 'Vérifier',
    wrong: 'Code incorrect. Vérifiez-le et réessayez.',
    sentTo: (phone: string) => `Nous avons envoyé un code par SMS au ${phone}.`,
    signedIn: 'Vous êtes connecté',
  },
  en: {
    email: 'Email',
    password: 'Password',
    signIn: 'Login',
    step: 'Two-step verification',
    code: 'Verification code',
    verify: 'Verify',
    wrong: 'Wrong code. Please check it and try again.',
    sentTo: (phone: string) => `We sent a code by SMS to ${phone}.`,
    signedIn: 'You are signed in',
  },
} as const
type Labels = (typeof LABELS)[keyof typeof LABELS]

async function passwordSignIn(page: Page, l: Labels, email: string, path = '/') {
  await page.goto(path)
  await page.getByLabel(l.email).fill(email)
  await page.getByLabel(l.password).fill(PASSWORD)
  await page.getByRole('button', { name: l.signIn }).click()
}

/**
 * On the code step for `phone`: where the code went is said, the field is what a one-time code
 * needs, there is no session yet; a wrong code is refused with an alert and the step stays; the
 * right one is submitted last (the caller checks where it lands).
 */
async function passCodeStep(page: Page, context: BrowserContext, admin: Admin, l: Labels, phone: string) {
  await expect(page.getByRole('heading', { name: l.step })).toBeVisible()
  expect(new URL(page.url()).pathname).toBe('/second-factor')
  expect(new URL(page.url()).search).toBe('')
  await expect(page.getByText(l.sentTo(masked(phone)))).toBeVisible()
  const field = page.getByLabel(l.code)
  await expect(field).toBeFocused()
  await expect(field).toHaveAttribute('autocomplete', 'one-time-code')
  await expect(field).toHaveAttribute('inputmode', 'numeric')
  await expect(field).toHaveAttribute('maxlength', '6')
  expect(await sessionCookie(context)).toBeUndefined()
  // The pending sign-in is in no page and no address: the emulator's credential starts with this.
  expect(await page.content()).not.toContain('eyJfQXV0aEVtdWxhdG9y')

  const code = await admin.lastSmsCode(phone)
  expect(code, 'the emulator sent a code at once').toMatch(/^\d{6}$/)
  await field.fill(wrongCodeFor(code!))
  await page.getByRole('button', { name: l.verify }).click()
  await expect(page.getByRole('alert')).toHaveText(l.wrong)
  await expect(page.getByRole('heading', { name: l.step })).toBeVisible()
  expect(await sessionCookie(context)).toBeUndefined()

  await page.getByLabel(l.code).fill(code!)
  await page.getByRole('button', { name: l.verify }).click()
}

test('password, then the SMS code: a wrong code is refused, the right one signs in and honours the redirect (fr)', async ({
  page,
  context,
  admin,
  mfaPortal,
}) => {
  const phone = uniquePhone()
  const email = await mfaAccount(admin, [{ phoneNumber: phone, displayName: 'Portable' }])
  // localhost is one of the emulator project's authorizedDomains; nothing listens on port 9.
  await passwordSignIn(page, LABELS.fr, email, '/?redirect=http%3A%2F%2Flocalhost%3A9%2Fafter')
  const followed = page.waitForRequest('http://localhost:9/after')
  await passCodeStep(page, context, admin, LABELS.fr, phone)
  expect((await followed).url()).toBe('http://localhost:9/after')
  expect(await sessionCookie(context)).toBeDefined()
  const code = (await admin.verificationCodes()).find((c) => c.phoneNumber === phone)
  expect(code, 'the code was spent').toBeUndefined()
  // Nothing secret in the log: neither the pending credential nor the emulator's session.
  expect(mfaPortal.output()).not.toContain('eyJfQXV0aEVtdWxhdG9y')
  expect(mfaPortal.output()).toContain('"secondFactor":"phone"')
})

test.describe('in English', () => {
  test.use({ locale: 'en-US' })

  test('password, then the SMS code: signed in, and the session cookie is accepted', async ({
    page,
    context,
    admin,
  }) => {
    const phone = uniquePhone()
    const email = await mfaAccount(admin, [{ phoneNumber: phone }])
    await passwordSignIn(page, LABELS.en, email)
    await passCodeStep(page, context, admin, LABELS.en, phone)
    await expect(page.getByRole('heading', { name: LABELS.en.signedIn })).toBeVisible()
    await expect(page.getByText(email)).toBeVisible()
    await page.goto('/')
    await expect(page.getByRole('heading', { name: LABELS.en.signedIn })).toBeVisible()
  })
})
