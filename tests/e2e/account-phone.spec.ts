import type { Page } from '@playwright/test'
import { uniqueEmail, uniquePhone } from '../../dev/emulator'
import type { Portal } from '../../dev/portal'
import { startRevertIdentity, type RevertIdentity } from '../support/revert-identity'
import { type Admin, COMMON_LABELS, EMULATOR_SECRETS, expect, loggedPortal, portalBehind, signIn, test as base, testOn, wrongCodeFor, logOut } from './fixtures'

/**
 * Adding a phone as a second factor (ADR 042), against the emulator (SMS codes from its
 * verification-codes endpoint): signed in, "Confirm it's you", a bad number (kept, with its
 * message), "Send code", a wrong code, the right one, "Add"; then the next sign-in asks for an SMS
 * code. A portal of its own with room in the limits, so that every run starts fresh. The emailed
 * undo (revertSecondFactorAddition) comes from a loopback in front of the emulator, which sends none.
 */

const PASSWORD = 'Correct-Horse-42'

const test = testOn(loggedPortal)

test.describe.configure({ timeout: 90_000 })


const LABELS = {
  en: {
    ...COMMON_LABELS.en,
    title: 'Add a phone number',
    phone: 'Phone number',
    send: 'Send code',
    badNumber: 'Please enter a phone number in international format.',
    sent: (phone: string) => `We sent a code by SMS to ${phone}.`,
    code: 'Code',
    add: 'Add',
    wrong: 'Wrong code. Please check it and try again.',
    resend: 'Resend code',
    wait: /^Resend code \(0:\d\d\)$/,
    stepCode: 'Verification code',
    needsVerified:
      'A phone can be added once your email address is verified. Open the link of the verification email, then come back here.',
    sendVerification: 'Send verification email',
    added: 'The phone number has been added. From now on, signing in asks for a code sent to it.',
    remove: 'Remove',
    removeButton: 'Remove this factor',
    removed: 'The second factor has been removed.',
  },
  fr: {
    ...COMMON_LABELS.fr,
    title: 'Ajouter un numéro de téléphone',
    phone: 'Numéro de téléphone',
    send: 'Envoyer le code',
    badNumber: 'Veuillez saisir un numéro de téléphone au format international.',
    sent: (phone: string) => `Nous avons envoyé un code par SMS au ${phone}.`,
    code: 'Code',
    add: 'Ajouter',
    wrong: 'Code incorrect. Vérifiez-le et réessayez.',
    resend: 'Renvoyer le code',
    wait: /^Renvoyer le code \(0:\d\d\)$/,
    stepCode: 'Code de vérification',
    needsVerified:
      'Vous pourrez ajouter un téléphone une fois votre adresse électronique vérifiée. Ouvrez le lien du courriel de vérification, puis revenez ici.',
    sendVerification: 'Vérifier l’adresse',
    added: 'Le numéro de téléphone a été ajouté. Désormais, la connexion demande un code envoyé à ce numéro.',
    remove: 'Retirer',
    removeButton: 'Retirer cette méthode',
    removed: 'La méthode de vérification a été retirée.',
  },
} as const
type Labels = (typeof LABELS)[keyof typeof LABELS]

async function expectNoSecret(page: Page) {
  const html = await page.content()
  for (const secret of EMULATOR_SECRETS) {
    expect(html).not.toContain(secret)
    expect(page.url()).not.toContain(secret)
  }
}

/** From signed out to the phone page: sign-in brings back here, then "Confirm it's you". */
async function reachPhonePage(page: Page, l: Labels, email: string) {
  await page.goto('/account/second-factor/phone')
  expect(new URL(page.url()).searchParams.get('redirect')).toBe('/account/second-factor/phone')
  await page.getByLabel(l.email, { exact: true }).fill(email)
  await page.getByLabel(l.password, { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: l.signIn }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.confirm)
  await page.getByLabel(l.password, { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: l.continue }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.title)
}

async function addPhone(page: Page, admin: Admin, l: Labels) {
  const email = uniqueEmail('phone')
  const phone = uniquePhone()
  const { localId } = await admin.createUser(email, PASSWORD)
  await admin.verifyEmail(localId)
  await reachPhonePage(page, l, email)

  // A bad number: its message, tied to the field, and what was typed kept.
  const field = page.getByLabel(l.phone, { exact: true })
  await expect(field).toHaveAttribute('type', 'tel')
  await field.fill('06 12 34')
  await page.getByRole('button', { name: l.send }).click()
  await expect(page.getByText(l.badNumber)).toBeVisible()
  await expect(field).toHaveValue('06 12 34')
  await expect(field).toHaveAttribute('aria-invalid', 'true')

  // Spaces between groups are fine.
  await field.fill(`${phone.slice(0, 2)} ${phone.slice(2, 5)} ${phone.slice(5)}`)
  await page.getByRole('button', { name: l.send }).click()
  await expect(page.getByText(l.sent(phone))).toBeVisible()
  await expectNoSecret(page)
  const code = await admin.lastSmsCode(phone)
  expect(code).toMatch(/^\d{6}$/)
  // "Resend code" says how long to wait, in its label.
  await expect(page.getByRole('button', { name: l.resend })).toHaveAttribute('aria-disabled', 'true')
  await expect(page.getByRole('button', { name: l.resend })).toHaveText(l.wait)

  const codeField = page.getByLabel(l.code, { exact: true })
  await expect(codeField).toHaveAttribute('autocomplete', 'one-time-code')
  await expect(codeField).toHaveAttribute('inputmode', 'numeric')
  await codeField.fill(wrongCodeFor(code!))
  await page.getByRole('button', { name: l.add, exact: true }).click()
  await expect(page.getByText(l.wrong)).toBeVisible()
  await expect(page.getByText(l.sent(phone))).toBeVisible()

  const session = async () => (await page.context().cookies()).find((c) => c.name === 'session')?.value
  const before = await session()
  expect(before).toBeDefined()
  await page.getByLabel(l.code, { exact: true }).fill(code!)
  await page.getByRole('button', { name: l.add, exact: true }).click()
  // Back on the account, still signed in, the phone listed (masked).
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
  // This browser's session record took the service's new session from the token it answered, as
  // for an authenticator app (ADR 041, ADR 063): the same cookie, still signed in.
  // Compared, not printed: a session cookie never reaches the test's output either.
  expect((await session()) === before, 'the same session record as before "Add"').toBe(true)
  expect(new URL(page.url()).search).toBe('?done=phone-added')
  await expect(page.getByRole('status')).toHaveText(l.added)
  await expect(page.getByText(phone.slice(-4), { exact: false })).toBeVisible()
  await expectNoSecret(page)
  return { email, phone }
}

/**
 * Removes the phone from the account page: "Confirm it's you" (the password, then the phone's own
 * code), the removal, then a sign-in that asks for no code.
 */
async function removePhone(page: Page, admin: Admin, l: Labels, account: { email: string; phone: string }) {
  await page.getByRole('button', { name: l.remove, exact: true }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.confirm)
  const sent = (await admin.verificationCodes()).filter((c) => c.phoneNumber === account.phone).length
  await page.getByLabel(l.password, { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: l.continue }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.step)
  await page.getByLabel(l.stepCode).fill((await admin.lastSmsCode(account.phone, sent))!)
  await page.getByRole('button', { name: l.verify }).click()
  await page.getByRole('button', { name: l.removeButton }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
  await expect(page.getByRole('status')).toHaveText(l.removed)
  await logOut(page)
  await signIn(page, account.email, PASSWORD, '/?redirect=%2Faccount')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
}


/** Signs out, then in again: the new factor is asked for, and its SMS code accepted. */
async function signInWithCode(page: Page, admin: Admin, l: Labels, account: { email: string; phone: string }) {
  await logOut(page)
  const sent = (await admin.verificationCodes()).filter((c) => c.phoneNumber === account.phone).length
  await signIn(page, account.email, PASSWORD, '/?redirect=%2Faccount')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.step)
  const code = await admin.lastSmsCode(account.phone, sent)
  await page.getByLabel(l.stepCode).fill(code!)
  await page.getByRole('button', { name: l.verify }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
}

test.describe('in English', () => {
  test.use({ locale: 'en-US' })

  test('adds a phone through "Confirm it\'s you", a bad number and a wrong code; the next sign-in asks for its SMS code', async ({
    page,
    admin,
    portal,
  }) => {
    const l = LABELS.en
    const account = await addPhone(page, admin, l)
    await signInWithCode(page, admin, l, account)
    await removePhone(page, admin, l, account)
    for (const secret of EMULATOR_SECRETS) expect(portal.output()).not.toContain(secret)
  })

  test('an unverified address is told so and offered the verification email', async ({ page, admin }) => {
    const l = LABELS.en
    const email = uniqueEmail('phone-unverified')
    await admin.createUser(email, PASSWORD)
    await signIn(page, email, PASSWORD, '/?redirect=%2Faccount%2Fsecond-factor%2Fphone')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.title)
    await expect(page.getByText(l.needsVerified)).toBeVisible()
    await expect(page.getByLabel(l.phone)).toHaveCount(0)
    await page.getByRole('button', { name: l.sendVerification }).click()
    // /account's own action: "Confirm it's you" first, the email as it ends.
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.confirm)
  })
})

test('en français : ajouter un téléphone, puis la connexion demande son code', async ({ page, admin }) => {
  const l = LABELS.fr
  const account = await addPhone(page, admin, l)
  await signInWithCode(page, admin, l, account)
  await removePhone(page, admin, l, account)
})

test('en français : une adresse non vérifiée est indiquée', async ({ page, admin }) => {
  const l = LABELS.fr
  const email = uniqueEmail('phone-unverified')
  await admin.createUser(email, PASSWORD)
  await signIn(page, email, PASSWORD, '/?redirect=%2Faccount%2Fsecond-factor%2Fphone')
  await expect(page.getByText(l.needsVerified)).toBeVisible()
  await expect(page.getByRole('button', { name: l.sendVerification })).toBeVisible()
})

const revertTest = base.extend<{ revert: { identity: RevertIdentity; portal: Portal } }>({
  revert: portalBehind((emulator) => startRevertIdentity(emulator.origin, emulator.projectId)),
  baseURL: async ({ revert }, use) => use(revert.portal.url),
})

revertTest.describe('in English', () => {
  revertTest.use({ locale: 'en-US' })

  revertTest(
    'the emailed revertSecondFactorAddition link removes the phone just added: the next sign-in asks for no code',
    async ({ page, admin, revert }) => {
      const l = LABELS.en
      const account = await addPhone(page, admin, l)
      // The emulator emails nothing after an enrolment; the loopback sent the service's email.
      const emulated = (await admin.oobCodes()).filter(
        (c) => c.email === account.email && c.requestType === 'REVERT_SECOND_FACTOR_ADDITION',
      )
      expect(emulated).toEqual([])
      const email = revert.identity.sent.find((e) => e.email === account.email)
      expect(email).toBeDefined()

      await page.goto(
        `/action?${new URLSearchParams({ mode: 'revertSecondFactorAddition', oobCode: email!.oobCode, apiKey: 'demo-api-key', lang: 'en' })}`,
      )
      await expect(page.getByRole('heading', { name: 'Remove the second factor' })).toBeVisible()
      await page.getByRole('button', { name: 'Continue' }).click()
      await expect(page.getByText('The second factor has been removed from your account.')).toBeVisible()

      await logOut(page)
      await signIn(page, account.email, PASSWORD, '/?redirect=%2Faccount')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
    },
  )
})
