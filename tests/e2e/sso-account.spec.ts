import type { Page } from '@playwright/test'
import { uniqueEmail } from '../../dev/emulator'
import { claimsFor, providerAnswer, startSso } from '../support/sso-provider'
import { wcagViolations } from './axe'
import { COMMON_LABELS, expect, everyWayPortal, SESSION_AGES, sessionCookie, ssoTestOn, oneModePerLanguage } from './fixtures'

/**
 * Single sign-on on the signed-in half (ADR 043): "Confirm it's you" for an account of the
 * portal's provider goes through that provider again, and "Keep me signed in" holds through a
 * sign-in by the provider. A portal of its own, with session lifetimes that cannot be mistaken for
 * the defaults; the emulator's fake provider answers as tests/e2e/sso.spec.ts has it answer.
 */

const PASSWORD = 'Correct-Horse-42'
const NEW_PASSWORD = 'Another-Horse-2026'
const { remembered: REMEMBER_MAX_AGE } = SESSION_AGES

const test = ssoTestOn(everyWayPortal)

// Each test signs in, confirms and acts: several page budgets on a busy machine.
test.describe.configure({ timeout: 90_000 })

const LABELS = {
  en: {
    ...COMMON_LABELS.en,
    provider: 'Continue with Google',
    confirmTitle: "Confirm it's you",
    told: "This account signs in with Google: continue with Google again to confirm it's you.",
    mismatch: 'The supplied credentials do not correspond to the previously signed in user.',
    deleteLink: 'Delete account',
    deleteField: (email: string) => `Type ${email} to confirm`,
    deleteButton: 'Delete my account',
    deleted: 'Your account has been deleted',
    newPassword: 'New password',
    confirmPassword: 'Confirm new password',
    changePassword: 'Change password',
    passwordChanged: 'Your password has been changed. This device stays signed in; every other device was signed out.',
  },
  fr: {
    ...COMMON_LABELS.fr,
    provider: 'Continuer avec Google',
    confirmTitle: 'Confirmez votre identité',
    told: 'Ce compte se connecte avec Google\u00a0: continuez à nouveau avec Google pour confirmer votre identité.',
    mismatch: 'Les identifiants fournis ne correspondent pas au compte de cette session.',
    deleteLink: 'Supprimer le compte',
    deleteField: (email: string) => `Saisissez ${email} pour confirmer`,
    deleteButton: 'Supprimer mon compte',
    deleted: 'Votre compte a été supprimé',
    newPassword: 'Nouveau mot de passe',
    confirmPassword: 'Confirmer le nouveau mot de passe',
    changePassword: 'Modifier le mot de passe',
    passwordChanged:
      'Votre mot de passe a été modifié. La session reste ouverte sur cet appareil\u202f; tous les autres appareils ont été déconnectés.',
  },
} as const
type Labels = (typeof LABELS)[keyof typeof LABELS]

async function expectNoViolations(page: Page) {
  expect(await wcagViolations(page)).toEqual([])
}

/** Signs in through the provider as the account of `claims` (a new one the first time). */
async function signInWithProvider(page: Page, l: Labels, claims: Record<string, unknown>, remember = false) {
  await page.goto('/')
  if (remember) await page.getByLabel(l.remember).check()
  const start = await startSso(page, l.provider)
  await page.goto(providerAnswer(start, claims))
  await expect(page.getByRole('heading', { name: l.signedIn })).toBeVisible()
}

/** On "Confirm it's you": through the provider, coming back as the account of `claims`. */
async function confirmWithProvider(page: Page, l: Labels, claims: Record<string, unknown>) {
  await expect(page.getByRole('heading', { name: l.confirmTitle })).toBeVisible()
  await expect(page.getByText(l.told)).toBeVisible()
  const start = await startSso(page, l.provider)
  await page.goto(providerAnswer(start, claims))
}


for (const [lang, l] of Object.entries(LABELS)) {
  test.describe(`in ${lang}`, oneModePerLanguage(lang), () => {
    test.use({ locale: lang === 'fr' ? 'fr-FR' : 'en-US' })

    test('an account of the provider confirms through it, and the action it protects then works', async ({ page }) => {
      const email = uniqueEmail(`sso-reauth-${lang}`)
      const me = claimsFor(email)
      await signInWithProvider(page, l, me)
      if (lang === 'en') {
        // The account page offers the deletion to an account of the provider too.
        await page.goto('/account')
        await page.getByRole('link', { name: l.deleteLink }).click()
        await confirmWithProvider(page, l, me)
        expect(new URL(page.url()).pathname).toBe('/account/delete')
        expect(page.url()).not.toContain('id_token')
        await page.getByLabel(l.deleteField(email)).fill(email)
        await page.getByRole('button', { name: l.deleteButton }).click()
        await expect(page.getByRole('heading', { name: l.deleted })).toBeVisible()
      } else {
        await page.goto('/account/password')
        await confirmWithProvider(page, l, me)
        expect(new URL(page.url()).pathname).toBe('/account/password')
        await page.getByLabel(l.newPassword, { exact: true }).fill(NEW_PASSWORD)
        await page.getByLabel(l.confirmPassword, { exact: true }).fill(NEW_PASSWORD)
        await page.getByRole('button', { name: l.changePassword }).click()
        await expect(page.getByText(l.passwordChanged)).toBeVisible()
        await expect(page.getByText(email)).toBeVisible()
      }
    })

    test('another account of the provider coming back is refused; the visitor stays signed in as themselves', async ({
      page,
      javaScriptEnabled,
    }) => {
      const email = uniqueEmail(`sso-mine-${lang}`)
      await signInWithProvider(page, l, claimsFor(email))
      await page.goto('/account/delete')
      if (javaScriptEnabled) await expectNoViolations(page)
      await confirmWithProvider(page, l, claimsFor(uniqueEmail(`sso-other-${lang}`)))
      await expect(page.getByRole('alert')).toHaveText(l.mismatch)
      await expect(page.getByRole('heading', { name: l.confirmTitle })).toBeVisible()
      if (javaScriptEnabled) await expectNoViolations(page)
      // Nothing was confirmed: the action still asks, and the account page is still this account's.
      await page.goto('/account/delete')
      await expect(page.getByRole('heading', { name: l.confirmTitle })).toBeVisible()
      await page.goto('/account')
      await expect(page.getByRole('heading', { name: l.account })).toBeVisible()
      await expect(page.getByText(email)).toBeVisible()
    })

    test('"Keep me signed in" holds through the provider: checked, the cookie persists', async ({ page, context }) => {
      const since = Date.now()
      await signInWithProvider(page, l, claimsFor(uniqueEmail(`sso-remember-${lang}`)), true)
      const { expires } = await sessionCookie(context)
      expect(expires).toBeGreaterThanOrEqual(since / 1000 + REMEMBER_MAX_AGE - 5)
      expect(expires).toBeLessThanOrEqual(Date.now() / 1000 + REMEMBER_MAX_AGE + 5)
    })

    test('"Keep me signed in" unchecked: the provider’s session ends with the browser', async ({ page, context }) => {
      await signInWithProvider(page, l, claimsFor(uniqueEmail(`sso-forget-${lang}`)))
      expect(await sessionCookie(context)).toMatchObject({ expires: -1 })
    })

    test('Enter in the password field still signs in with the password, not the provider', async ({ page, admin }) => {
      const email = uniqueEmail(`sso-enter-${lang}`)
      await admin.createUser(email, PASSWORD)
      await page.goto('/')
      await page.getByLabel(l.email, { exact: true }).fill(email)
      await page.getByLabel(l.password, { exact: true }).fill(PASSWORD)
      await page.getByLabel(l.password, { exact: true }).press('Enter')
      await expect(page.getByRole('heading', { name: l.signedIn })).toBeVisible()
      await expect(page.getByText(email)).toBeVisible()
    })
  })
}

test.describe('with a second factor', () => {
  test.use({ locale: 'en-US' })

  test('the provider, then the sign-in’s own code step, then back to the action', async ({ page, admin }) => {
    const l = LABELS.en
    const email = uniqueEmail('sso-reauth-mfa')
    const me = claimsFor(email)
    await signInWithProvider(page, l, me)
    const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`
    await admin.enrollSms((await admin.localIdOf(email))!, [{ phoneNumber: phone }])

    await page.goto('/account/delete')
    await confirmWithProvider(page, l, me)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Two-step verification')
    await page.getByLabel('Verification code').fill((await admin.lastSmsCode(phone))!)
    await page.getByRole('button', { name: 'Verify' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Delete account')
    expect(new URL(page.url()).pathname).toBe('/account/delete')
    await page.getByLabel(l.deleteField(email)).fill(email)
    await page.getByRole('button', { name: l.deleteButton }).click()
    await expect(page.getByRole('heading', { name: l.deleted })).toBeVisible()
  })
})
