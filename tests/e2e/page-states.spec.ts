import { uniqueEmail } from '../../dev/emulator'
import { expect, test } from './fixtures'

/**
 * Headings and titles follow the page's state (issue 18), with JavaScript and without: a sent
 * reset email is no longer a request for an address, a signed-in page is no longer a sign-in form.
 */
const PASSWORD = 'States-Pass-2026'

test('the reset request, once sent, is headed and titled by what happens next (fr)', async ({ page }) => {
  await page.goto('/forgot-password')
  await expect(page).toHaveTitle(/^Mot de passe oublié · /)
  await page.getByLabel('E-mail').fill(uniqueEmail('states'))
  await page.getByRole('button', { name: 'Envoyer l’e-mail' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Consultez votre messagerie')
  await expect(page).toHaveTitle(/^Consultez votre messagerie · /)
  await expect(page.getByText('Veuillez saisir votre adresse e-mail')).toHaveCount(0)
})

test.describe('in English', () => {
  test.use({ locale: 'en-US' })

  test('the reset request, once sent', async ({ page }) => {
    await page.goto('/forgot-password')
    await page.getByLabel('Email').fill(uniqueEmail('states'))
    await page.getByRole('button', { name: 'Send email' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Check your email')
    await expect(page).toHaveTitle(/^Check your email · /)
  })

  test('the signed-in page is titled as such', async ({ page, admin }) => {
    const email = uniqueEmail('states')
    await admin.createUser(email, PASSWORD)
    await page.goto('/')
    await expect(page).toHaveTitle(/^Sign in · /)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Login' }).click()
    await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
    await expect(page).toHaveTitle(/^You are signed in · /)
  })
})
