import { uniqueEmail } from '../../dev/emulator'
import { expectNoViolations } from './axe'
import { confirmItsYou, expect, signIn, test, oneModePerLanguage } from './fixtures'

/**
 * The account page in sections, in the peers' order (profile; sign-in and security; where you're
 * signed in; a danger zone), its status badges, its danger buttons and a plain "Log out"; and the
 * delete page's label that names the address to type. In English and French, light and dark.
 */

const PASSWORD = 'Correct-Horse-42'

const LABELS = {
  en: {
    locale: 'en-US',
    account: 'Your account',
    sections: ['Profile', 'Sign-in and security', "Where you're signed in", 'Danger zone'],
    factors: 'Second factors',
    passkeys: 'Passkeys',
    unverified: 'Not verified',
    verified: 'Verified',
    twoStepOff: 'Two-step off',
    logout: 'Log out',
    everywhere: 'Log out of all devices',
    deleteLink: 'Delete account',
    deleteButton: 'Delete my account',
    confirmLabel: (email: string) => `Type ${email} to confirm`,
    signedOut: 'Sign In',
  },
  fr: {
    locale: 'fr-FR',
    account: 'Votre compte',
    sections: ['Profil', 'Connexion et sécurité', 'Vos sessions ouvertes', 'Zone de danger'],
    factors: 'Vérification en deux étapes',
    passkeys: 'Clés d’accès',
    unverified: 'Non vérifiée',
    verified: 'Vérifiée',
    twoStepOff: 'Deux étapes\u00a0: non',
    logout: 'Se déconnecter',
    everywhere: 'Se déconnecter partout',
    deleteLink: 'Supprimer le compte',
    deleteButton: 'Supprimer mon compte',
    confirmLabel: (email: string) => `Saisissez ${email} pour confirmer`,
    signedOut: 'Connexion',
  },
} as const

for (const lang of ['en', 'fr'] as const) {
  const l = LABELS[lang]
  test.describe(`in ${lang}`, oneModePerLanguage(lang), () => {
    test.use({ locale: l.locale })

    test(`the account page: sections in order, badges, danger buttons, a plain "Log out" (${lang})`, async ({
      page,
      admin,
    }) => {
      const email = uniqueEmail(`layout-${lang}`)
      const { localId } = await admin.createUser(email, PASSWORD)
      await page.setViewportSize({ width: 1280, height: 900 })
      await signIn(page, email, PASSWORD, '/?redirect=%2Faccount')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
      await expect(page.getByRole('heading', { level: 2 })).toHaveText([...l.sections])
      await expect(page.getByRole('heading', { level: 3, name: l.factors })).toBeVisible()
      await expect(page.getByText(l.unverified, { exact: true })).toHaveClass(/\bbadge-off\b/)
      await expect(page.getByText(l.twoStepOff, { exact: true })).toHaveClass(/\bbadge-off\b/)
      await expect(page.getByRole('button', { name: l.everywhere })).toHaveClass(/\bbutton-danger\b/)
      await expect(page.getByRole('link', { name: l.deleteLink })).toHaveClass(/\bbutton-danger\b/)
      // The desktop's width: more than the sign-in card's 26rem.
      expect((await page.locator('main.card').boundingBox())!.width).toBeGreaterThan(800)
      await expectNoViolations(page, `account sections (${lang})`)

      await admin.verifyEmail(localId)
      await page.reload()
      await expect(page.getByText(l.verified, { exact: true })).toHaveClass(/\bbadge-on\b/)

      await page.setViewportSize({ width: 320, height: 640 })
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
      expect(overflow, 'horizontal scrolling at 320 px').toBeLessThanOrEqual(0)
      await expectNoViolations(page, `account sections at 320 px (${lang})`)

      await page.getByRole('button', { name: l.logout, exact: true }).click()
      await expect(page.getByRole('heading', { level: 1 })).not.toHaveText(l.account)
      await page.goto('/account')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.signedOut)
    })

    test(`the delete page names the address to type, and its button is a danger button (${lang})`, async ({
      page,
      admin,
    }) => {
      const email = uniqueEmail(`layout-delete-${lang}`)
      await admin.createUser(email, PASSWORD)
      await signIn(page, email, PASSWORD, '/account/delete')
      await confirmItsYou(page, PASSWORD)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.deleteLink)
      await expect(page.getByLabel(l.confirmLabel(email), { exact: true })).toBeVisible()
      await expect(page.getByRole('button', { name: l.deleteButton })).toHaveClass(/\bbutton-danger\b/)
      await expectNoViolations(page, `delete account (${lang})`)
    })
  })
}
