import { expect, test } from './fixtures'

test('the sign-in page renders inside the portal container', async ({ page }) => {
  const response = await page.goto('/')
  expect(response?.status()).toBe(200)
  await expect(page.locator('#auth-portal-app')).toBeVisible()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Connexion')
  await expect(page.getByLabel('Adresse électronique')).toBeVisible()
})
