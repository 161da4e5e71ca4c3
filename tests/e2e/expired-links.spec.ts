import type { Page } from '@playwright/test'
import { EMULATOR_API_KEY, uniqueEmail } from '../../dev/emulator'
import { COMMON_LABELS, confirmItsYou, everyWayPortal, expect, testOn, oneModePerLanguage } from './fixtures'

/**
 * An emailed link that no longer works, of every kind but a reset (new-password-states.spec.ts):
 * the page says so at once, never first as a page with "Continue", and its one action leads back
 * into that link's own flow: a verification from the account page, a new address from "Change
 * email address", a new sign-in link from the sign-in page, the second factors from the account.
 * A used link is spent for real in the emulator; an expired one is a code it never made.
 */

const PASSWORD = 'Expired-Links-2026'
const test = testOn(everyWayPortal)

const LABELS = {
  en: {
    ...COMMON_LABELS.en,
    expired: 'Link expired or already used',
    invalid: 'This link is invalid or has expired.',
    toAccount: 'Go to your account',
    changeEmail: 'Change email address',
    newLink: 'Ask for a new sign-in link',
    sendVerification: 'Send verification email',
    verificationSent: 'A verification link is on its way to your address. Open it to confirm the address.',
    secondFactors: 'Second factors',
  },
  fr: {
    ...COMMON_LABELS.fr,
    expired: 'Lien expiré ou déjà utilisé',
    invalid: 'Ce lien est invalide ou a expiré.',
    toAccount: 'Aller à votre compte',
    changeEmail: 'Modifier l’adresse électronique',
    newLink: 'Demander un nouveau lien de connexion',
    sendVerification: 'Vérifier l’adresse',
    verificationSent: 'Un lien de vérification est en route vers votre adresse. Ouvrez-le pour confirmer l’adresse.',
    secondFactors: 'Vérification en deux étapes',
  },
} as const
type Labels = (typeof LABELS)[keyof typeof LABELS]

/** A call to the emulator's public API, as a client app would make it. */
async function identity(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const url = `${process.env.EMULATOR_ORIGIN}/identitytoolkit.googleapis.com/v1/${path}?key=${EMULATOR_API_KEY}`
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  const json = (await res.json()) as Record<string, unknown>
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`)
  return json
}

/** A link of this mode with a code the emulator never made: what an expired one is to the portal. */
const deadLink = (mode: string) => `/action?mode=${mode}&oobCode=expired-${Date.now()}&apiKey=${EMULATOR_API_KEY}`

/** Opens the link: the expired-link page at once (no "Continue" first), with its one action, which it follows. */
async function openDead(page: Page, l: Labels, link: string, action: string) {
  const response = await page.goto(link)
  expect(response?.status()).toBe(400)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.expired)
  await expect(page.getByRole('alert')).toHaveText(l.invalid)
  await expect(page.getByRole('button', { name: l.continue })).toHaveCount(0)
  await page.getByRole('link', { name: action }).click()
}

/** The sign-in form the action led to (signed out), filled and sent. */
async function signInThere(page: Page, l: Labels, email: string) {
  await page.getByLabel(l.email, { exact: true }).fill(email)
  await page.getByLabel(l.password, { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: l.signIn }).click()
}

for (const [lang, l] of Object.entries(LABELS)) {
  test.describe(`in ${lang}`, oneModePerLanguage(lang), () => {
    test.use({ locale: lang === 'en' ? 'en-US' : 'fr-FR' })

    test('a used verification link leads to the account page, which says whether the address is verified', async ({ page, admin, baseURL }) => {
      const email = uniqueEmail('expired-verify')
      const { idToken } = await admin.createUser(email, PASSWORD)
      await identity('accounts:sendOobCode', { requestType: 'VERIFY_EMAIL', idToken })
      const link = await admin.emailedLink(email, 'VERIFY_EMAIL', baseURL!)
      // Opened and used elsewhere (another browser, a mail app's preview that clicked through)…
      await identity('accounts:update', { oobCode: new URL(link).searchParams.get('oobCode') })
      await openDead(page, l, link, l.toAccount)
      await signInThere(page, l, email)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
    })

    test('an expired verification link: the account page sends a new one', async ({ page, admin }) => {
      const email = uniqueEmail('expired-verify2')
      await admin.createUser(email, PASSWORD)
      await openDead(page, l, deadLink('verifyEmail'), l.toAccount)
      await signInThere(page, l, email)
      await page.getByRole('button', { name: l.sendVerification }).click()
      await confirmItsYou(page, PASSWORD)
      await expect(page.getByRole('status')).toHaveText(l.verificationSent)
    })

    test('an expired address-change link leads to “Change email address”', async ({ page, admin }) => {
      const email = uniqueEmail('expired-change')
      await admin.createUser(email, PASSWORD)
      await openDead(page, l, deadLink('verifyAndChangeEmail'), l.changeEmail)
      await signInThere(page, l, email)
      await confirmItsYou(page, PASSWORD)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.changeEmail)
    })

    test('a used sign-in link leads to the sign-in page, which sends a new one', async ({ page, admin, baseURL }) => {
      const email = uniqueEmail('expired-signin')
      await admin.createUser(email, PASSWORD)
      await identity('accounts:sendOobCode', { requestType: 'EMAIL_SIGNIN', email, continueUrl: `${baseURL}/` })
      const link = await admin.emailedLink(email, 'EMAIL_SIGNIN', baseURL!)
      await identity('accounts:signInWithEmailLink', { email, oobCode: new URL(link).searchParams.get('oobCode') })
      await openDead(page, l, link, l.newLink)
      await page.getByLabel(l.email, { exact: true }).fill(email)
      await page.getByRole('button', { name: l.linkButton }).click()
      await expect(page.getByRole('status')).toHaveText(l.linkSent)
    })

    test('an expired link that undoes a second factor leads to the account’s second factors', async ({ page, admin }) => {
      const email = uniqueEmail('expired-revert')
      await admin.createUser(email, PASSWORD)
      await openDead(page, l, deadLink('revertSecondFactorAddition'), l.toAccount)
      await signInThere(page, l, email)
      await expect(page.getByRole('heading', { name: l.secondFactors })).toBeVisible()
    })
  })
}
