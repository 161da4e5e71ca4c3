import { uniqueEmail } from '../../dev/emulator'
import { COMMON_LABELS, expect, signIn, test, oneModePerLanguage } from './fixtures'

/**
 * "Confirm it's you" names the account being confirmed, and a wrong password is a wrong password:
 * the page has no address field, so "Wrong email address or password" would point at nothing.
 */

const PASSWORD = 'Confirm-Account-2026'

const LABELS = {
  en: { ...COMMON_LABELS.en, signedInAs: 'Signed in as', wrong: 'Wrong password' },
  fr: { ...COMMON_LABELS.fr, signedInAs: 'Compte\u00a0:', wrong: 'Mot de passe incorrect' },
} as const

for (const [lang, l] of Object.entries(LABELS)) {
  test.describe(`in ${lang}`, oneModePerLanguage(lang), () => {
    test.use({ locale: lang === 'en' ? 'en-US' : 'fr-FR' })

    test('the page shows the account; a wrong password says “wrong password”, and the right one goes on', async ({
      page,
      admin,
    }) => {
      const email = uniqueEmail('confirm-account')
      await admin.createUser(email, PASSWORD)
      await signIn(page, email, PASSWORD, '/?redirect=%2Faccount%2Fpassword')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.confirm)
      await expect(page.getByText(`${l.signedInAs} ${email}`)).toBeVisible()

      await page.getByLabel(l.password, { exact: true }).fill('Not-The-Password-1')
      await page.getByRole('button', { name: l.continue }).click()
      await expect(page.getByRole('alert')).toHaveText(l.wrong)
      await expect(page.getByText(`${l.signedInAs} ${email}`)).toBeVisible()
      await expect(page.getByLabel(l.password, { exact: true })).toHaveValue('')

      await page.getByLabel(l.password, { exact: true }).fill(PASSWORD)
      await page.getByRole('button', { name: l.continue }).click()
      await expect(page).toHaveURL(/\/account\/password$/)
    })
  })
}
