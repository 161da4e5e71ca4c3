import type { BrowserContext, Page } from '@playwright/test'
import { uniqueEmail } from '../../dev/emulator'
import { type Admin, COMMON_LABELS, expect, everyWayPortal, SESSION_AGES, sessionCookie, sessionsSetDuring, testOn, oneModePerLanguage } from './fixtures'

/**
 * "Keep me signed in" (ADR 037): unchecked, the session cookie ends with the browser and the
 * Firebase session lasts SESSION_MAX_AGE; checked, both last SESSION_REMEMBER_MAX_AGE. The choice
 * is made on the sign-in form and holds through every way that form signs in, and through a
 * password change. A portal of its own, with lifetimes that cannot be mistaken for the defaults.
 */

const PASSWORD = 'Correct-Horse-42'
const NEW_PASSWORD = 'Another-Horse-2026'
const { remembered: REMEMBER_MAX_AGE } = SESSION_AGES

const test = testOn(everyWayPortal)

// Some tests walk two steps and a password change: several page budgets on a busy machine.
test.describe.configure({ timeout: 90_000 })

type Labels = (typeof COMMON_LABELS)[keyof typeof COMMON_LABELS]


/** Ends with the browser: no expiry (Playwright says -1). */
async function expectBrowserSession(context: BrowserContext) {
  expect(await sessionCookie(context)).toMatchObject({ expires: -1 })
}

/** Persists SESSION_REMEMBER_MAX_AGE from now (generous margins: a busy machine). */
async function expectRemembered(context: BrowserContext, since: number) {
  const { expires } = await sessionCookie(context)
  expect(expires).toBeGreaterThanOrEqual(since / 1000 + REMEMBER_MAX_AGE - 5)
  expect(expires).toBeLessThanOrEqual(Date.now() / 1000 + REMEMBER_MAX_AGE + 5)
}

async function fillSignIn(page: Page, l: Labels, email: string, remember: boolean, path = '/') {
  await page.goto(path)
  const box = page.getByLabel(l.remember)
  await expect(box, 'unchecked by default').not.toBeChecked()
  await page.getByLabel(l.email, { exact: true }).fill(email)
  await page.getByLabel(l.password, { exact: true }).fill(PASSWORD)
  if (remember) await box.check()
}

for (const [lang, l] of Object.entries(COMMON_LABELS)) {
  test.describe(`in ${lang}`, oneModePerLanguage(lang), () => {
    test.use({ locale: lang === 'en' ? 'en-US' : 'fr-FR' })

    test('unchecked: the session cookie ends with the browser', async ({ page, context, admin }) => {
      const email = uniqueEmail('remember-off')
      await admin.createUser(email, PASSWORD)
      await fillSignIn(page, l, email, false)
      await page.getByRole('button', { name: l.signIn }).click()
      await expect(page.getByRole('heading', { name: l.signedIn })).toBeVisible()
      await expectBrowserSession(context)
    })

    test('checked: the session cookie persists for SESSION_REMEMBER_MAX_AGE', async ({ page, context, admin }) => {
      const email = uniqueEmail('remember-on')
      await admin.createUser(email, PASSWORD)
      await fillSignIn(page, l, email, true)
      const since = Date.now()
      await page.getByRole('button', { name: l.signIn }).click()
      await expect(page.getByRole('heading', { name: l.signedIn })).toBeVisible()
      await expectRemembered(context, since)
    })
  })
}

test.describe('in English', () => {
  test.use({ locale: 'en-US' })
  const l = COMMON_LABELS.en

  test('a refused sign-in keeps the box as it was', async ({ page, admin }) => {
    const email = uniqueEmail('remember-wrong')
    await admin.createUser(email, PASSWORD)
    await fillSignIn(page, l, email, true)
    await page.getByLabel(l.password, { exact: true }).fill('Not-the-password-1')
    await page.getByRole('button', { name: l.signIn }).click()
    await expect(page.getByRole('alert')).toHaveText('Wrong email address or password')
    await expect(page.getByLabel(l.remember)).toBeChecked()
  })

  test('checked, then the second factor: the choice travels through the step', async ({ page, context, admin }) => {
    const email = uniqueEmail('remember-mfa')
    const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`
    const { localId } = await admin.createUser(email, PASSWORD)
    await admin.enrollSms(localId, [{ phoneNumber: phone }])
    await fillSignIn(page, l, email, true)
    const since = Date.now()
    await page.getByRole('button', { name: l.signIn }).click()
    await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible()
    expect(new URL(page.url()).search, 'the choice is in no address').toBe('')
    await page.getByLabel('Verification code').fill((await admin.lastSmsCode(phone))!)
    await page.getByRole('button', { name: 'Verify' }).click()
    await expect(page.getByRole('heading', { name: l.signedIn })).toBeVisible()
    await expectRemembered(context, since)
  })

  test('unchecked, then the second factor: a browser session', async ({ page, context, admin }) => {
    const email = uniqueEmail('remember-mfa-off')
    const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`
    const { localId } = await admin.createUser(email, PASSWORD)
    await admin.enrollSms(localId, [{ phoneNumber: phone }])
    await fillSignIn(page, l, email, false)
    await page.getByRole('button', { name: l.signIn }).click()
    await page.getByLabel('Verification code').fill((await admin.lastSmsCode(phone))!)
    await page.getByRole('button', { name: 'Verify' }).click()
    await expect(page.getByRole('heading', { name: l.signedIn })).toBeVisible()
    await expectBrowserSession(context)
  })

  test('checked, then "Email me a sign-in link": the link opened in this browser keeps the choice', async ({
    page,
    context,
    admin,
    portal,
  }) => {
    const email = uniqueEmail('remember-link')
    await admin.createUser(email, PASSWORD)
    await fillSignIn(page, l, email, true)
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click()
    await expect(page.getByRole('status')).toBeVisible()
    const link = await signInLink(admin, email, portal.url)
    await page.goto(link)
    const since = Date.now()
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page.getByRole('heading', { name: l.signedIn })).toBeVisible()
    await expectRemembered(context, since)
  })

  for (const remember of [true, false]) {
    test(`a password change on /account/password keeps this browser's choice (${remember ? 'checked' : 'unchecked'})`, async ({
      page,
      context,
      admin,
    }) => {
      const email = uniqueEmail('remember-password')
      await admin.createUser(email, PASSWORD)
      await fillSignIn(page, l, email, remember, '/account/password')
      await page.getByRole('button', { name: l.signIn }).click()
      await expect(page.getByRole('heading', { level: 1 })).toHaveText("Confirm it's you")
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await page.getByRole('button', { name: 'Continue' }).click()
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Change password')
      await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD)
      await page.getByLabel('Confirm new password', { exact: true }).fill(NEW_PASSWORD)
      const since = Date.now()
      const sessions = await sessionsSetDuring(page, async () => {
        await page.getByRole('button', { name: 'Change password' }).click()
        await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your account')
      })
      expect(sessions, 'a new session').toHaveLength(1)
      if (remember) await expectRemembered(context, since)
      else await expectBrowserSession(context)
    })
  }
})

/** The emailed sign-in link as the emulator recorded it, pointed at the portal's /action. */
async function signInLink(admin: Admin, email: string, portalUrl: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const code = (await admin.oobCodes()).filter((c) => c.email === email && c.requestType === 'EMAIL_SIGNIN').at(-1)
    if (code) return `${portalUrl}/action${new URL(code.oobLink).search}`
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`no sign-in email for ${email}`)
}
