import { uniqueEmail } from '../../dev/emulator'
import { startLoopbackIdentity } from '../support/emulator-relay'
import { answerMfaSettings, SMS_AND_APPS } from '../support/mfa-settings'
import type { Portal } from '../../dev/portal'
import { COMMON_LABELS, confirmItsYou, expect, portalBehind, signIn, test, oneModePerLanguage } from './fixtures'

/**
 * The account page offers only the second factors the identity project enables (ADR 072): the
 * emulator (the local demo) has SMS and no authenticator apps, so "Add an authenticator app" is
 * not offered there, and its page says so instead of failing. A project that enables authenticator
 * apps and then refuses to start one: the page says what the refusal means, and the log has it at `warn`.
 */

const PASSWORD = 'Offer-Second-2026'

const LABELS = {
  en: {
    ...COMMON_LABELS.en,
    addTotp: 'Add an authenticator app',
    addPhone: 'Add a phone number',
    notOffered: 'This service does not offer authenticator apps as a second factor.',
    back: 'Back to your account',
    qr: 'QR code to scan with your authenticator app',
  },
  fr: {
    ...COMMON_LABELS.fr,
    addTotp: 'Ajouter une application d’authentification',
    addPhone: 'Ajouter un numéro de téléphone',
    notOffered: 'Ce service ne propose pas d’application d’authentification comme méthode de vérification.',
    back: 'Retour à votre compte',
    qr: 'Code QR à scanner avec votre application d’authentification',
  },
} as const

for (const [lang, l] of Object.entries(LABELS)) {
  test.describe(`on the emulator, which has no authenticator apps (${lang})`, oneModePerLanguage(lang), () => {
    test.use({ locale: lang === 'en' ? 'en-US' : 'fr-FR' })

    test('the account page offers a phone and no authenticator app; the app’s page says it is not offered', async ({
      page,
      admin,
    }) => {
      const email = uniqueEmail('offer')
      const { localId } = await admin.createUser(email, PASSWORD)
      await admin.verifyEmail(localId)
      await signIn(page, email, PASSWORD, '/?redirect=%2Faccount')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
      await expect(page.getByRole('link', { name: l.addPhone })).toBeVisible()
      await expect(page.getByRole('link', { name: l.addTotp })).toHaveCount(0)

      // Typed or bookmarked: the page says why, with the way back; no "unexpected error", no 503.
      const response = await page.goto('/account/second-factor/totp')
      expect(response?.status()).toBe(404)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.addTotp)
      await expect(page.getByRole('alert')).toHaveText(l.notOffered)
      await expect(page.getByRole('link', { name: l.back })).toBeVisible()
      await expect(page.getByRole('img', { name: l.qr })).toHaveCount(0)
    })
  })
}

/** A project that says it enables authenticator apps, and refuses to start one (OPERATION_NOT_ALLOWED). */
const refusing = test.extend<{ fake: { portal: Portal } }>({
  fake: portalBehind(async (emulator) => {
    const service = await startLoopbackIdentity(emulator.origin, async ({ path, body, answer, forward }) => {
      if (await answerMfaSettings({ path, answer, forward }, SMS_AND_APPS)) return
      if (path === '/v2/accounts/mfaEnrollment:start' && body.totpEnrollmentInfo) {
        return answer(400, { error: { code: 400, message: 'OPERATION_NOT_ALLOWED : TOTP based MFA not enabled.' } })
      }
    })
    return { host: service.host, close: service.close }
  }),
  baseURL: async ({ fake }, use) => use(fake.portal.url),
})

refusing.describe('a project that refuses to start an authenticator app', () => {
  refusing.use({ locale: 'en-US' })

  refusing('the page says the apps are not offered, and the log has the refusal at warn', async ({ page, admin, fake }) => {
    const l = LABELS.en
    const email = uniqueEmail('offer-refused')
    const { localId } = await admin.createUser(email, PASSWORD)
    await admin.verifyEmail(localId)
    await signIn(page, email, PASSWORD, '/?redirect=%2Faccount')
    await page.getByRole('link', { name: l.addTotp }).click()
    await confirmItsYou(page, PASSWORD)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.addTotp)
    await expect(page.getByRole('alert')).toHaveText(l.notOffered)
    await expect
      .poll(() =>
        fake.portal
          .output()
          .split('\n')
          .filter((line) => line.includes('"call":"mfaEnrollmentStart"')),
      )
      .toContainEqual(expect.stringMatching(/"level":"warn".*"code":"auth\/operation-not-allowed"/))
  })
})
