import { uniqueEmail, uniquePhone } from '../../dev/emulator'
import type { Portal } from '../../dev/portal'
import { startMfaIdentity } from '../support/mfa-identity'
import { COMMON_LABELS, confirmItsYou, expect, portalBehind, signIn, test as base } from './fixtures'

/**
 * Where the project demands reCAPTCHA for SMS (the loopback service enforces it for phones,
 * tests/support/mfa-identity.ts) and the check's script cannot load (a blocker, a network that
 * drops it), JavaScript is on: the page says the check could not be loaded, never "turn JavaScript
 * on", and no SMS goes. Adding a phone, and the sign-in step's SMS.
 */

const PASSWORD = 'Blocked-Check-2026'
const SCRIPT = 'http://127.0.0.1:9/recaptcha/enterprise.js'

const test = base.extend<{ fake: { portal: Portal } }>({
  fake: portalBehind((emulator) => startMfaIdentity(emulator.origin), { RECAPTCHA_SCRIPT_URL: SCRIPT }),
  baseURL: async ({ fake }, use) => use(fake.portal.url),
  page: async ({ page }, use) => {
    await page.route(/\/recaptcha\/enterprise\.js/, (route) => route.abort('blockedbyclient'))
    await use(page)
  },
})

const LABELS = {
  en: {
    ...COMMON_LABELS.en,
    addPhone: 'Add a phone number',
    phone: 'Phone number',
    send: 'Send code',
    checkFailed:
      'The security check could not be loaded, so no code was sent. Check your connection, or allow Google reCAPTCHA in your blocker, then try again.',
  },
  fr: {
    ...COMMON_LABELS.fr,
    addPhone: 'Ajouter un numéro de téléphone',
    phone: 'Numéro de téléphone',
    send: 'Envoyer le code',
    checkFailed:
      'La vérification de sécurité n’a pas pu être chargée\u00a0: aucun code n’a été envoyé. Vérifiez votre connexion, ou autorisez Google reCAPTCHA dans votre bloqueur, puis réessayez.',
  },
} as const

for (const [lang, l] of Object.entries(LABELS)) {
  test.describe(`the check's script blocked, with JavaScript (${lang})`, { tag: '@js-only' }, () => {
    test.use({ locale: lang === 'en' ? 'en-US' : 'fr-FR' })

    test('adding a phone says the check could not be loaded, and sends nothing', async ({ page, admin }) => {
      const email = uniqueEmail('blocked-phone')
      const { localId } = await admin.createUser(email, PASSWORD)
      await admin.verifyEmail(localId)
      await signIn(page, email, PASSWORD, '/?redirect=%2Faccount')
      await page.getByRole('link', { name: l.addPhone }).click()
      await confirmItsYou(page, PASSWORD)
      const phone = uniquePhone()
      await page.getByLabel(l.phone).fill(phone)
      await page.getByRole('button', { name: l.send }).click()
      await expect(page.getByRole('alert')).toHaveText(l.checkFailed)
      await expect(page.getByText('JavaScript')).toHaveCount(0)
      await expect(page.getByLabel(l.phone)).toHaveValue(phone)
      expect((await admin.verificationCodes()).filter((c) => c.phoneNumber === phone)).toEqual([])
    })

    test('the sign-in step’s “Send code” says the check could not be loaded', async ({ page, admin }) => {
      // A `captcha-…` account: one SMS factor whose start demands a token (the loopback service).
      const email = uniqueEmail('captcha-blocked')
      await admin.createUser(email, PASSWORD)
      await signIn(page, email, PASSWORD)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.step)
      await page.getByRole('button', { name: l.send }).click()
      await expect(page.getByRole('alert')).toHaveText(l.checkFailed)
      await expect(page.getByRole('button', { name: l.send })).toBeVisible()
    })
  })
}
