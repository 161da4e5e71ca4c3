import type { Page } from '@playwright/test'
import { uniqueEmail, uniquePhone } from '../../dev/emulator'
import type { Portal } from '../../dev/portal'
import { startSmsFaults, type SmsFaults } from '../support/sms-faults'
import { type Admin, COMMON_LABELS, expect, portalBehind, test as base, oneModePerLanguage } from './fixtures'

/**
 * Limits and failures that leave a way on. The SMS code step when no code could go: the controls
 * its message names are on the page and work ("Resend code", "Use another method"). A limit says
 * when it lets go, in the visitor's time zone with JavaScript, in UTC without: an SMS limit, and
 * sign-in's. The emulator sends every SMS; a loopback service in front of it refuses the next
 * starts on demand. One SMS per phone per hour; one failed sign-in per address and client.
 */

const PASSWORD = 'Sms-Limits-2026'
const ZONE = 'America/New_York'

const test = base.extend<{ fake: { identity: SmsFaults; portal: Portal } }>({
  fake: portalBehind(startSmsFaults, { RATE_LIMIT_MFA_SMS_PER_PHONE: '1', RATE_LIMIT_SIGNIN_PER_EMAIL_IP: '1' }),
  baseURL: async ({ fake }, use) => use(fake.portal.url),
})
test.use({ timezoneId: ZONE })

const LABELS = {
  en: {
    ...COMMON_LABELS.en,
    code: 'Verification code',
    resend: 'Resend code',
    another: 'Use another method',
    back: 'Back to login page',
    sentTo: (phone: string) => `We sent a code by SMS to the number ending in ${phone}.`,
    failedOne: 'The code could not be sent. Please try “Resend code” again.',
    failedSeveral: 'The code could not be sent. Please try “Resend code” again, or use another method.',
    limited: (time: string) => `No more codes can be sent for now. You can ask for a new one at ${time}.`,
    tooMany: (time: string) => `Too many attempts. You can try again at ${time}.`,
    wrong: 'Wrong email address or password',
    forgot: 'Forgot password?',
  },
  fr: {
    ...COMMON_LABELS.fr,
    code: 'Code de vérification',
    resend: 'Renvoyer le code',
    another: 'Changer de méthode',
    back: 'Retour à la connexion',
    sentTo: (phone: string) => `Nous avons envoyé un code par SMS au numéro se terminant par ${phone}.`,
    failedOne: 'Le code n’a pas pu être envoyé. Demandez-en un nouveau avec «\u00a0Renvoyer le code\u00a0».',
    failedSeveral: 'Le code n’a pas pu être envoyé. Demandez-en un nouveau avec «\u00a0Renvoyer le code\u00a0», ou utilisez une autre méthode.',
    limited: (time: string) => `Plus aucun code ne peut être envoyé pour l’instant. Vous pourrez en demander un nouveau à ${time}.`,
    tooMany: (time: string) => `Trop de tentatives. Vous pourrez réessayer à ${time}.`,
    wrong: 'Adresse électronique ou mot de passe incorrect',
    forgot: 'Mot de passe oublié\u202f?',
  },
} as const
type Labels = (typeof LABELS)[keyof typeof LABELS]

/**
 * The alert's sentence with the time a limit of `seconds` lets go, asked at `after`: on the whole
 * minute, in the visitor's zone with JavaScript, in UTC (said so) without.
 */
async function expectTime(
  page: Page,
  lang: string,
  javaScriptEnabled: boolean,
  { after, seconds, sentence }: { after: number; seconds: number; sentence: (time: string) => string },
) {
  const time = page.getByRole('alert').locator('time')
  const at = Date.parse((await time.getAttribute('datetime'))!)
  expect(at).toBeGreaterThanOrEqual(after + (seconds - 60) * 1000)
  expect(at).toBeLessThanOrEqual(Date.now() + (seconds + 60) * 1000)
  expect(new Date(at).getUTCSeconds()).toBe(0)
  const zone = javaScriptEnabled ? ZONE : 'UTC'
  const shown = new Intl.DateTimeFormat(lang, { timeStyle: 'short', timeZone: zone }).format(at)
  const expected = spaces(sentence(javaScriptEnabled ? shown : `${shown} UTC`))
  await expect.poll(async () => spaces(await page.getByRole('alert').innerText())).toBe(expected)
}

/** The phone as the step names it: its last four digits ('the number ending in 0100'). */
const masked = (phone: string) => phone.slice(-4)
const spaces = (text: string) => text.replace(/\s/gu, ' ')

/** A new account with these SMS factors, signed in with its password: on the step. */
async function signInWithSms(page: Page, admin: Admin, l: Labels, phones: string[]) {
  const email = uniqueEmail('sms-limits')
  const { localId } = await admin.createUser(email, PASSWORD)
  await admin.enrollSms(localId, phones.map((phoneNumber, i) => ({ phoneNumber, displayName: `Phone ${i + 1}` })))
  await signInAgain(page, l, email)
  return email
}

async function signInAgain(page: Page, l: Labels, email: string) {
  await page.goto('/')
  await page.getByLabel(l.email, { exact: true }).fill(email)
  await page.getByLabel(l.password, { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: l.signIn }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.step)
}

for (const [lang, l] of Object.entries(LABELS)) {
  test.describe(`in ${lang}`, oneModePerLanguage(lang), () => {
    test.use({ locale: lang === 'en' ? 'en-US' : 'fr-FR' })

    test('a code that could not be sent: “Resend code” is there and sends it', async ({ page, admin, fake }) => {
      const phone = uniquePhone()
      fake.identity.failNext(1)
      await signInWithSms(page, admin, l, [phone])
      await expect(page.getByRole('alert')).toHaveText(l.failedOne)
      await expect(page.getByRole('button', { name: l.another })).toHaveCount(0)
      await page.getByRole('button', { name: l.resend }).click()
      await expect(page.getByText(l.sentTo(masked(phone)))).toBeVisible()
      await page.getByLabel(l.code).fill((await admin.lastSmsCode(phone))!)
      await page.getByRole('button', { name: l.verify }).click()
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.signedIn)
    })

    test('with two phones, the failure names both ways on, and “Use another method” is there', async ({
      page,
      admin,
      fake,
    }) => {
      await signInWithSms(page, admin, l, [uniquePhone(), uniquePhone()])
      fake.identity.failNext(1)
      await page.getByRole('button', { name: /^Phone 1/ }).click()
      await expect(page.getByRole('alert')).toHaveText(l.failedSeveral)
      await expect(page.getByRole('button', { name: l.resend })).toBeVisible()
      await page.getByRole('button', { name: l.another }).click()
      await expect(page.getByRole('button', { name: /^Phone 2/ })).toBeVisible()
    })

    test('an SMS limit says when a new code can be asked for, and “Resend code” is there', async ({
      page,
      admin,
      javaScriptEnabled,
    }) => {
      const phone = uniquePhone()
      const email = await signInWithSms(page, admin, l, [phone])
      await expect(page.getByText(l.sentTo(masked(phone)))).toBeVisible()
      // Signing in again within the hour: the phone's one SMS is spent.
      await page.getByRole('link', { name: l.back }).click()
      const asked = Date.now()
      await signInAgain(page, l, email)
      await expectTime(page, lang, javaScriptEnabled, { after: asked, seconds: 3600, sentence: l.limited })
      await expect(page.getByRole('button', { name: l.resend })).toBeVisible()
    })

    test('a sign-in limit says when it lets go; “Forgot password?” is there', async ({ page, admin, javaScriptEnabled }) => {
      const email = uniqueEmail('signin-limit')
      await admin.createUser(email, PASSWORD)
      await page.goto('/')
      for (const expected of [l.wrong, null]) {
        await page.getByLabel(l.email, { exact: true }).fill(email)
        await page.getByLabel(l.password, { exact: true }).fill('Not-The-Password-1')
        const asked = Date.now()
        await page.getByRole('button', { name: l.signIn }).click()
        if (expected) await expect(page.getByRole('alert')).toHaveText(expected)
        else await expectTime(page, lang, javaScriptEnabled, { after: asked, seconds: 900, sentence: l.tooMany })
      }
      await expect(page.getByRole('link', { name: l.forgot })).toBeVisible()
    })
  })
}
