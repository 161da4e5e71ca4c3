import { uniqueEmail } from '../../dev/emulator'
import { expect, test } from './fixtures'

const PASSWORD = 'Correct-Horse-42'

/**
 * The account area's strings are a file of their own (ADR 068): a signed-out page never loads it,
 * and a visitor who moves to the account page within the app sees its words, not their keys.
 */
test('the account strings load on the way to the account page, not before (fr) @js-only', async ({ page, admin }) => {
  const email = uniqueEmail('strings')
  await admin.createUser(email, PASSWORD)
  const fetched: string[] = []
  page.on('request', (request) => void (/\/locales\/|\.json$/.test(request.url()) && fetched.push(new URL(request.url()).pathname)))
  await page.goto('/')
  await page.getByLabel('Adresse électronique').fill(email)
  await page.getByLabel('Mot de passe').fill(PASSWORD)
  await page.getByRole('button', { name: 'Se connecter' }).click()
  await expect(page.getByRole('heading', { name: 'Votre session est ouverte' })).toBeVisible()
  expect(fetched.filter((path) => path.includes('account'))).toEqual([])
  await page.getByRole('link', { name: 'Votre compte' }).click()
  await expect(page.getByRole('heading', { name: 'Vos sessions ouvertes' })).toBeVisible()
  await expect(page.getByText('sessions.title')).toHaveCount(0)
  expect(fetched.filter((path) => path.includes('account'))).toHaveLength(1)
})
