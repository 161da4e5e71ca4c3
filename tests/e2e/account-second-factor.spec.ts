import type { Page } from '@playwright/test'
import { uniqueEmail, uniquePhone } from '../../dev/emulator'
import { type Admin, COMMON_LABELS, EMULATOR_SECRETS, expect, expectFieldError, loggedPortal, sessionsSetDuring, signIn, wrongCodeFor, testOn } from './fixtures'

/**
 * "Confirm it's you" for an account with a second factor (ADR 036, ADR 038): the password, then
 * the sign-in's own code step (SMS, against the emulator), then back to the action with a fresh
 * token sealed to this browser; no new session is made on the way. A portal of its own, to read
 * its log.
 */

const PASSWORD = 'Correct-Horse-42'
const NEW_PASSWORD = 'Another-Horse-2026'

const test = testOn(loggedPortal)

test.describe.configure({ timeout: 90_000 })


const LABELS = {
  en: {
    ...COMMON_LABELS.en,
    changePassword: 'Change password',
    code: 'Verification code',
    wrong: 'Wrong code. Please check it and try again.',
    newPassword: 'New password',
    confirmNew: 'Confirm new password',
    changed: 'Your password has been changed. This device stays signed in; every other device was signed out.',
    back: 'Back to your account',
  },
  fr: {
    ...COMMON_LABELS.fr,
    changePassword: 'Modifier le mot de passe',
    code: 'Code de vérification',
    wrong: 'Code incorrect. Vérifiez-le et réessayez.',
    newPassword: 'Nouveau mot de passe',
    confirmNew: 'Confirmer le nouveau mot de passe',
    changed:
      'Votre mot de passe a été modifié. La session reste ouverte sur cet appareil\u202f; tous les autres appareils ont été déconnectés.',
    back: 'Retour à votre compte',
  },
} as const
type Labels = (typeof LABELS)[keyof typeof LABELS]

/** No token and no pending credential in the page or its address. */
async function expectNoSecret(page: Page) {
  const html = await page.content()
  for (const secret of EMULATOR_SECRETS) {
    expect(html).not.toContain(secret)
    expect(page.url()).not.toContain(secret)
  }
}

async function mfaAccount(admin: Admin) {
  const email = uniqueEmail('confirm-mfa')
  const phone = uniquePhone()
  const { localId } = await admin.createUser(email, PASSWORD)
  await admin.enrollSms(localId, [{ phoneNumber: phone }])
  return { email, phone }
}

/** Signs in (password, then the SMS code) and lands on `path`. */
async function signInWithSms(page: Page, admin: Admin, l: Labels, account: { email: string; phone: string }, path: string) {
  await signIn(page, account.email, PASSWORD, `/?${new URLSearchParams({ redirect: path })}`)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.step)
  const code = await admin.lastSmsCode(account.phone)
  await page.getByLabel(l.code).fill(code!)
  await page.getByRole('button', { name: l.verify }).click()
}

/** "Confirm it's you": the password, then a new SMS code (a wrong one first: the step stays). */
async function confirmWithCode(page: Page, admin: Admin, l: Labels, phone: string) {
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.confirm)
  const sent = (await admin.verificationCodes()).filter((c) => c.phoneNumber === phone).length
  await page.getByLabel(l.password, { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: l.continue }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.step)
  await expectNoSecret(page)
  const code = await admin.lastSmsCode(phone, sent)
  expect(code, 'the confirmation sent its own code').toMatch(/^\d{6}$/)
  await page.getByLabel(l.code).fill(wrongCodeFor(code!))
  await page.getByRole('button', { name: l.verify }).click()
  await expectFieldError(page, l.code, l.wrong)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.step)
  // The way back from this step is the account, not the sign-in page.
  await expect(page.getByRole('link', { name: l.back })).toHaveAttribute('href', '/account')
  await page.getByLabel(l.code).fill(code!)
  await page.getByRole('button', { name: l.verify }).click()
}

test.describe('in English', () => {
  test.use({ locale: 'en-US' })

  test('an account with an SMS second factor changes its password through "Confirm it\'s you" and the code step', async ({
    page,
    context,
    admin,
    portal,
  }) => {
    const l = LABELS.en
    const account = await mfaAccount(admin)
    await signInWithSms(page, admin, l, account, '/account')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
    const session = (await context.cookies()).find((c) => c.name === 'session')?.value
    expect(session).toBeDefined()

    await page.getByRole('link', { name: l.changePassword }).click()
    await confirmWithCode(page, admin, l, account.phone)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.changePassword)
    expect(new URL(page.url()).pathname).toBe('/account/password')
    await expectNoSecret(page)
    // The confirmation made no new session: the token is kept in this session's record, in no cookie.
    const cookies = await context.cookies()
    expect(cookies.find((c) => c.name === 'session')?.value).toBe(session)
    expect(cookies.map((c) => c.name)).not.toContain('recent_login')

    // Every session ends; this browser signs in again with the new password, through its second factor.
    const sent = (await admin.verificationCodes()).filter((c) => c.phoneNumber === account.phone).length
    await page.getByLabel(l.newPassword, { exact: true }).fill(NEW_PASSWORD)
    await page.getByLabel(l.confirmNew, { exact: true }).fill(NEW_PASSWORD)
    await page.getByRole('button', { name: l.changePassword }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.step)
    await page.getByLabel(l.code).fill((await admin.lastSmsCode(account.phone, sent))!)
    const sessions = await sessionsSetDuring(page, async () => {
      await page.getByRole('button', { name: l.verify }).click()
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
    })
    await expect(page.getByRole('status')).toHaveText(l.changed)
    expect(sessions, 'the code step set a new session').toHaveLength(1)

    // The new password opens the account (its second factor next); the old one no longer does.
    await context.clearCookies()
    await signIn(page, account.email, PASSWORD, '/')
    await expect(page.getByRole('alert')).toHaveText('Wrong email address or password')
    await page.getByLabel(l.password, { exact: true }).fill(NEW_PASSWORD)
    await page.getByRole('button', { name: l.signIn }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.step)
    for (const secret of EMULATOR_SECRETS) expect(portal.output()).not.toContain(secret)
  })
})

test('en français : « Confirmez votre identité » passe par le code d’un compte à deux étapes, puis revient à l’action', async ({
  page,
  admin,
}) => {
  const l = LABELS.fr
  const account = await mfaAccount(admin)
  await signInWithSms(page, admin, l, account, '/account/password')
  await confirmWithCode(page, admin, l, account.phone)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.changePassword)
  await expect(page.getByLabel(l.newPassword, { exact: true })).toBeVisible()
  await expectNoSecret(page)
  // A step that ended sends back here, asking for the password again (the visitor is still signed in).
  await page.goto('/account/confirm?next=%2Faccount%2Fpassword&mfaError=expired')
  await expect(page.getByRole('alert')).toHaveText(
    'Votre vérification a expiré. Veuillez saisir à nouveau votre mot de passe.',
  )
})
