import type { Page } from '@playwright/test'
import { uniqueEmail } from '../../dev/emulator'
import { expect, ownPortal, signIn, test as base, testOn, COMMON_LABELS, type Admin, oneModePerLanguage } from './fixtures'

/**
 * "Create an account" (ADR 066) on a portal with FLAG_SIGN_UP, in both languages, with JavaScript
 * on and off (the two projects); the shared portal has the flag off.
 */
const test = testOn(ownPortal(() => ({ FLAG_SIGN_UP: 'true' })))
const PASSWORD = 'Brand-New-Secret-77'

const SIGN_UP_LABELS = {
  en: {
    ...COMMON_LABELS.en,
    link: 'Create an account',
    title: 'Create an account',
    newPassword: 'Password',
    confirmPassword: 'Confirm password',
    submit: 'Create account',
    sent: 'Check your email to finish creating your account',
    typed: (email: string) => `Address you typed: ${email}`,
    spam: 'Nothing after a few minutes? Look in your spam or junk folder.',
    again: 'No email, or the link has expired? Sign in with the password you chose: your account page sends the verification email again.',
    verifyTitle: 'Verify your email address',
    verified: 'Your email address has been verified.',
    next: 'Go on to the site',
    back: 'Back to login page',
    tooShort: 'Your password must have at least 12 characters.',
    invalidEmail: 'Please enter a valid email address.',
  },
  fr: {
    ...COMMON_LABELS.fr,
    link: 'Créer un compte',
    title: 'Créer un compte',
    newPassword: 'Mot de passe',
    confirmPassword: 'Confirmer le mot de passe',
    submit: 'Créer le compte',
    sent: 'Consultez votre messagerie pour terminer la création de votre compte',
    typed: (email: string) => `Adresse saisie\u00a0: ${email}`,
    spam: 'Rien reçu après quelques minutes\u202f? Regardez dans le dossier des courriers indésirables (spam).',
    again: 'Pas de courriel, ou le lien a expiré\u202f? Connectez-vous avec le mot de passe choisi\u00a0: la page de votre compte renvoie le courriel de vérification.',
    verifyTitle: 'Vérifiez votre adresse électronique',
    verified: 'Votre adresse électronique a été vérifiée.',
    next: 'Poursuivre vers le site',
    back: 'Retour à la connexion',
    tooShort: 'Votre mot de passe doit comporter au moins 12 caractères.',
    invalidEmail: 'Veuillez saisir une adresse électronique valide.',
  },
} as const
type Labels = (typeof SIGN_UP_LABELS)[keyof typeof SIGN_UP_LABELS]

/** Fills the form and sends it; answers the status of the post (a redirect without JavaScript, the data request's with it). */
async function signUp(page: Page, l: Labels, email: string, password = PASSWORD, confirmation = password) {
  await page.getByLabel(l.email, { exact: true }).fill(email)
  await page.getByLabel(l.newPassword, { exact: true }).fill(password)
  await page.getByLabel(l.confirmPassword, { exact: true }).fill(confirmation)
  const answer = page.waitForResponse((response) => response.request().method() === 'POST')
  await page.getByRole('button', { name: l.submit }).click()
  return (await answer).status()
}

/** Whether the emulator holds the address as verified (its admin lookup). */
async function verified(admin: Admin, email: string): Promise<boolean | null> {
  const localId = await admin.localIdOf(email)
  if (!localId) return null
  const res = await fetch(
    `${process.env.EMULATOR_ORIGIN}/identitytoolkit.googleapis.com/v1/projects/${process.env.EMULATOR_PROJECT_ID}/accounts:lookup`,
    {
      method: 'POST',
      headers: { Authorization: 'Bearer owner', 'Content-Type': 'application/json' },
      body: JSON.stringify({ localId: [localId] }),
    },
  )
  const { users } = (await res.json()) as { users: Array<{ emailVerified?: boolean }> }
  return users[0]?.emailVerified ?? false
}

for (const [locale, language] of [
  ['fr-FR', 'fr'],
  ['en-US', 'en'],
] as const) {
  test.describe(`in ${language}`, oneModePerLanguage(language), () => {
    test.use({ locale })
    const l = SIGN_UP_LABELS[language]

    test('an account is created from the sign-in page, its address verified from the email, and it signs in', async ({
      page,
      admin,
      baseURL,
    }) => {
      const email = uniqueEmail(`sign-up-${language}`)
      // Where the visitor was going stays with them: the link, the page, its way back, the email's link.
      await page.goto('/?redirect=%2Faccount')
      await page.getByRole('link', { name: l.link }).click()
      await expect(page).toHaveURL(/\/sign-up\?redirect=%2Faccount$/)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.title)
      await signUp(page, l, email)
      await expect(page.getByRole('status')).toHaveText(l.sent)
      await expect(page).toHaveURL(/\/sign-up\?sent=1&redirect=%2Faccount$/)
      await expect(page.getByRole('link', { name: l.back })).toHaveAttribute('href', '/?redirect=%2Faccount')
      // The address as typed, where else to look, and how to have it sent again (ADR 083).
      await expect(page.getByText(l.typed(email))).toBeVisible()
      await expect(page.getByText(l.spam)).toBeVisible()
      await expect(page.getByText(l.again)).toBeVisible()

      // The verification email, from the emulator's outbox; the account is there, not yet verified.
      const link = await admin.emailedLink(email, 'VERIFY_EMAIL', baseURL!)
      expect(await verified(admin, email)).toBe(false)
      await page.goto(link)
      await expect(page.getByRole('heading', { name: l.verifyTitle })).toBeVisible()
      await page.getByRole('button', { name: l.continue }).click()
      await expect(page.getByText(l.verified)).toBeVisible()
      expect(await verified(admin, email)).toBe(true)
      await expect(page.getByRole('link', { name: l.next })).toHaveAttribute('href', /\/\?redirect=%2Faccount$/)

      await signIn(page, email, PASSWORD, '/?redirect=%2Faccount')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
    })

    test('a refused password keeps the address, never the password, and marks the rules', async ({
      page,
      admin,
      javaScriptEnabled,
    }) => {
      const email = uniqueEmail(`sign-up-weak-${language}`)
      await page.goto('/sign-up')
      const posts: string[] = []
      page.on('request', (request) => void (request.method() === 'POST' && posts.push(request.url())))
      if (javaScriptEnabled) {
        // The page checks the shared rules before sending: nothing leaves it, the fields keep what was typed.
        await page.getByLabel(l.email, { exact: true }).fill(email)
        await page.getByLabel(l.newPassword, { exact: true }).fill('Pass1234')
        await page.getByLabel(l.confirmPassword, { exact: true }).fill('Pass1234')
        await page.getByRole('button', { name: l.submit }).click()
      } else {
        expect(await signUp(page, l, email, 'Pass1234')).toBe(400)
      }
      const password = page.getByLabel(l.newPassword, { exact: true })
      await expect(password).toHaveAttribute('aria-invalid', 'true')
      await expect(password).toHaveAccessibleDescription(new RegExp(`^${l.tooShort}`))
      await expect(page.getByLabel(l.email, { exact: true })).toHaveValue(email)
      // Each rule marked: the length, the special characters and the guessing missed; the other four met.
      const rules = page.locator('#password-rules')
      await expect(rules.locator('li[data-met="false"]')).toHaveCount(3)
      await expect(rules.locator('li[data-met="true"]')).toHaveCount(4)
      if (javaScriptEnabled) {
        expect(posts).toEqual([])
        await expect(password).toHaveValue('Pass1234')
      } else {
        expect(await page.content()).not.toContain('Pass1234')
        await expect(password).toHaveValue('')
      }
      expect(await admin.localIdOf(email)).toBeNull()
    })

    test('a bad address and a good password: the address is named, the rules say the password met them', async ({
      page,
    }) => {
      await page.goto('/sign-up')
      expect(await signUp(page, l, 'not-an-address')).toBe(400)
      await expect(page.getByLabel(l.email, { exact: true })).toHaveAccessibleDescription(l.invalidEmail)
      await expect(page.locator('#password-rules li[data-met="false"]')).toHaveCount(0)
      await expect(page.locator('#password-rules li[data-met="true"]')).toHaveCount(7)
    })

    test('an address that already has an account gets the same page and status; its owner a reset email', async ({
      page,
      admin,
    }) => {
      const known = uniqueEmail(`sign-up-known-${language}`)
      await admin.createUser(known, 'Old-password-2024')
      const seen = []
      for (const email of [uniqueEmail(`sign-up-new-${language}`), known]) {
        await page.goto('/sign-up')
        const status = await signUp(page, l, email)
        await expect(page.getByRole('status')).toHaveText(l.sent)
        // The address as typed is on the page (ADR 083): each its own, the rest the same.
        seen.push({ status, url: page.url(), main: (await page.getByRole('main').innerText()).replaceAll(email, 'EMAIL') })
      }
      expect(seen[1]).toEqual(seen[0])
      expect((await admin.emailed(known, 'PASSWORD_RESET')).email).toBe(known)
      expect((await admin.oobCodes()).filter((c) => c.email === known && c.requestType === 'VERIFY_EMAIL')).toEqual([])
    })
  })
}

base.describe('with FLAG_SIGN_UP off (the default)', () => {
  base('the page is a 404 and the sign-in page has no link to it', async ({ page }) => {
    const response = await page.goto('/sign-up')
    expect(response?.status()).toBe(404)
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Page introuvable')
    await page.goto('/')
    await expect(page.getByRole('link', { name: SIGN_UP_LABELS.fr.link })).toHaveCount(0)
    await expect(page.getByRole('link', { name: 'Mot de passe oublié\u202f?' })).toBeVisible()
  })
})
