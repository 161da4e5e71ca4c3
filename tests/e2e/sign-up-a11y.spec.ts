import { uniqueEmail } from '../../dev/emulator'
import { startLoopbackIdentity } from '../support/emulator-relay'
import { expectNoViolations } from './axe'
import { expect, ownPortal, portalBehind, test as base, testOn } from './fixtures'

/**
 * Every state of "Create an account" (ADR 066) through axe, light and dark, with JavaScript on and
 * off: the form, its errors, the email on its way, both languages, 320 px wide; and the page of a
 * project that takes no sign-ups.
 */
const test = testOn(ownPortal(() => ({ FLAG_SIGN_UP: 'true' })))
const PASSWORD = 'Accessible-Pass-42'

test.describe('the sign-up page is accessible, light and dark', () => {
  test.describe.configure({ timeout: 90_000 })

  test('in French at 320 px: the form, its errors, a refused password, the email on its way', async ({ page }) => {
    await page.setViewportSize({ width: 320, height: 640 })
    await page.goto('/sign-up')
    await expectNoViolations(page, 'sign-up')
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
    expect(overflow, 'horizontal scrolling at 320 px').toBeLessThanOrEqual(0)
    await page.getByRole('button', { name: 'Créer le compte' }).click()
    await expect(page.getByLabel('Mot de passe', { exact: true })).toHaveAttribute('aria-invalid', 'true')
    await expectNoViolations(page, 'sign-up, empty')
    await page.getByLabel('Adresse électronique').fill('pas-une-adresse')
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD)
    await page.getByLabel('Confirmer le mot de passe').fill(`${PASSWORD}x`)
    await page.getByRole('button', { name: 'Créer le compte' }).click()
    await expect(page.getByLabel('Confirmer le mot de passe')).toHaveAttribute('aria-invalid', 'true')
    await expectNoViolations(page, 'sign-up, mismatch')
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD)
    await page.getByLabel('Confirmer le mot de passe').fill(PASSWORD)
    await page.getByRole('button', { name: 'Créer le compte' }).click()
    await expect(page.getByLabel('Adresse électronique')).toHaveAttribute('aria-invalid', 'true')
    await expectNoViolations(page, 'sign-up, bad address')
    await page.getByLabel('Adresse électronique').fill(uniqueEmail('a11y-sign-up'))
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD)
    await page.getByLabel('Confirmer le mot de passe').fill(PASSWORD)
    await page.getByRole('button', { name: 'Créer le compte' }).click()
    await expect(page.getByRole('status')).toBeVisible()
    await expectNoViolations(page, 'sign-up, sent')
  })

  test.describe('in English', () => {
    test.use({ locale: 'en-US' })
    test('the form and the email on its way', async ({ page }) => {
      await page.goto('/sign-up')
      await expectNoViolations(page, 'sign-up (en)')
      await page.getByLabel('Email', { exact: true }).fill(uniqueEmail('a11y-sign-up-en'))
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await page.getByLabel('Confirm password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Create account' }).click()
      await expect(page.getByRole('status')).toHaveText('Check your email to finish creating your account')
      await expectNoViolations(page, 'sign-up, sent (en)')
    })
  })
})

/** A project that takes no sign-ups: the identity service refuses every accounts:signUp. */
const refusing = base.extend<{ off: { identity: { host: string; close(): Promise<void> }; portal: { url: string } } }>({
  off: portalBehind(
    (emulator) =>
      startLoopbackIdentity(emulator.origin, async ({ path, answer }) => {
        if (path === '/v1/accounts:signUp') answer(400, { error: { code: 400, message: 'OPERATION_NOT_ALLOWED' } })
      }),
    { FLAG_SIGN_UP: 'true' },
  ),
  baseURL: async ({ off }, use) => use(off.portal.url),
})

refusing('a project that takes no sign-ups: the page says sign-up is turned off, accessibly', async ({ page }) => {
  await page.goto('/sign-up')
  if ((await page.getByRole('alert').count()) === 0) {
    await page.getByLabel('Adresse électronique').fill(uniqueEmail('a11y-sign-up-off'))
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD)
    await page.getByLabel('Confirmer le mot de passe').fill(PASSWORD)
    await page.getByRole('button', { name: 'Créer le compte' }).click()
    // "Check your email", or already the refusal when the service answered before the page loaded.
    await expect(page.getByRole('status').or(page.getByRole('alert'))).toBeVisible()
    await expect.poll(async () => (await page.goto('/sign-up'))?.status(), { timeout: 15_000 }).toBe(403)
  }
  await expect(page.getByRole('alert')).toHaveText(
    'La création de compte est désactivée pour ce service\u00a0: contactez l’équipe qui le gère.',
  )
  await expect(page.getByLabel('Mot de passe', { exact: true })).toHaveCount(0)
  await expectNoViolations(page, 'sign-up turned off')
})
