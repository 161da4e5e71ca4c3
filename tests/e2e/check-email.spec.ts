import { uniqueEmail } from '../../dev/emulator'
import { expect, SHORT_RESEND_WAIT, shortWaitPortal, testOn, oneModePerLanguage } from './fixtures'

/**
 * The page that says a reset email went keeps the specification's neutral
 * sentence, and shows the address as typed, where else to look, and "Send the email again" after
 * a wait (the SMS code's, RESEND_WAIT_SECONDS: on this spec's portal SHORT_RESEND_WAIT, 6 s, waited out for real).
 * An address without an account gets the same page, word for word.
 */
const test = testOn(shortWaitPortal)
const PASSWORD = 'Correct-Horse-42'

const WORDS = {
  fr: {
    locale: 'fr-FR',
    email: 'Adresse électronique',
    send: 'Envoyer le courriel',
    heading: 'Réinitialisation demandée',
    sent: 'Si cette adresse électronique est valide, vous recevrez un courriel pour réinitialiser votre mot de passe.',
    typed: (email: string) => `Adresse saisie\u00a0: ${email}`,
    spam: 'Rien reçu après quelques minutes\u202f? Regardez dans le dossier des courriers indésirables (spam).',
    resend: 'Renvoyer le courriel',
    wait: /^Renvoyer le courriel \(0:(\d\d)\)$/,
    tooSoon: /^Trop de tentatives\. Vous pourrez réessayer à \d\d:\d\d UTC\.$/,
  },
  en: {
    locale: 'en-US',
    email: 'Email',
    send: 'Send email',
    heading: 'Password reset requested',
    sent: 'If this email address is valid, you will receive an email to reset your password.',
    typed: (email: string) => `Address you typed: ${email}`,
    spam: 'Nothing after a few minutes? Look in your spam or junk folder.',
    resend: 'Send the email again',
    wait: /^Send the email again \(0:(\d\d)\)$/,
    tooSoon: /^Too many attempts\. You can try again at \d\d?:\d\d [AP]M UTC\.$/,
  },
} as const

for (const [lang, l] of Object.entries(WORDS)) {
  test.describe(`the reset email sent (${lang})`, oneModePerLanguage(lang), () => {
    test.use({ locale: l.locale })

    test('shows the address as typed, the spam folder, and sends again only after the wait', async ({ page, admin, javaScriptEnabled }) => {
      test.setTimeout(60_000)
      const email = uniqueEmail('check-email')
      await admin.createUser(email, PASSWORD)
      await page.goto('/forgot-password')
      await page.getByLabel(l.email, { exact: true }).fill(`  ${email}`)
      await page.getByRole('button', { name: l.send }).click()
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.heading)
      // The page came after the email went: its wait ends at most SHORT_RESEND_WAIT seconds from here.
      const waitEnds = Date.now() + (SHORT_RESEND_WAIT + 1) * 1000
      await expect(page.getByRole('status')).toHaveText(l.sent)
      await expect(page.getByText(l.typed(email))).toBeVisible()
      await expect(page.getByText(l.spam)).toBeVisible()
      await admin.emailed(email, 'PASSWORD_RESET')

      const resend = page.getByRole('button', { name: l.resend })
      await expect(resend).toHaveAttribute('aria-disabled', 'true')
      // The wait is in the button's own label, 'Send the email again (0:29)', as 'Resend code' has it.
      await expect(resend).toHaveText(l.wait)
      if (javaScriptEnabled) {
        // Counted down each second; pressed during the wait, it sends nothing.
        const first = Number(l.wait.exec((await resend.textContent())!)![1])
        await expect.poll(async () => Number(l.wait.exec((await resend.textContent()) ?? '')?.[1] ?? 99)).toBeLessThan(first)
        await resend.click({ force: true })
      } else {
        // Without JavaScript it posts (marked unavailable, still a button), and the server answers with the limit's message, saying when.
        await resend.click({ force: true })
        await expect(page.getByRole('alert')).toHaveText(l.tooSoon)
        await expect(page.getByText(l.typed(email))).toBeVisible()
      }
      const sentBefore = async () => (await admin.oobCodes()).filter((c) => c.email === email && c.requestType === 'PASSWORD_RESET').length
      expect(await sentBefore()).toBe(1)

      await page.waitForTimeout(waitEnds - Date.now())
      await resend.click({ force: !javaScriptEnabled })
      await admin.emailed(email, 'PASSWORD_RESET', { after: 1 })
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.heading)
      await expect(page.getByRole('alert')).toHaveCount(0)
      // A new wait, from the new email.
      await expect(resend).toHaveAttribute('aria-disabled', 'true')
      await expect(resend).toHaveText(l.wait)
    })

    test('an address without an account gets the same page, its address as typed', async ({ page }) => {
      const typed = `No.Account.${uniqueEmail('check-email-unknown')}`.replace('@', '@Example-')
      await page.goto('/forgot-password')
      await page.getByLabel(l.email, { exact: true }).fill(typed)
      await page.getByRole('button', { name: l.send }).click()
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.heading)
      await expect(page.getByRole('status')).toHaveText(l.sent)
      await expect(page.getByText(l.typed(typed))).toBeVisible()
      await expect(page.getByText(l.spam)).toBeVisible()
      await expect(page.getByRole('button', { name: l.resend })).toHaveAttribute('aria-disabled', 'true')
      // Never in an address the portal builds.
      expect(page.url()).not.toContain(encodeURIComponent(typed))
      expect(page.url()).not.toContain(typed)
    })
  })
}
