import type { Page } from '@playwright/test'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { csrfFrom, maskServed, postForm } from '../support/http-browser'
import { startPortal } from '../../dev/portal'
import { expect, signIn, test } from './fixtures'
import { intoTheNextSecond } from '../support/next-second'

const OLD_PASSWORD = 'Old-password-2024'
const NEW_PASSWORD = 'Brand-new-Secret-77'


async function requestReset(page: Page, email: string, labels: { email: string; submit: string }) {
  await page.goto('/forgot-password')
  await page.getByLabel(labels.email).fill(email)
  await page.getByRole('button', { name: labels.submit }).click()
}

test('a forgotten password is reset from the emailed link (fr)', async ({ page, admin, baseURL }) => {
  const email = uniqueEmail('reset')
  await admin.createUser(email, OLD_PASSWORD)
  await requestReset(page, email, { email: 'Adresse électronique', submit: 'Envoyer le courriel' })
  await expect(page.getByText('Si cette adresse électronique est valide, vous recevrez un courriel pour réinitialiser votre mot de passe.')).toBeVisible()

  await page.goto(await admin.emailedLink(email, 'PASSWORD_RESET', baseURL!))
  // The code left the address bar.
  expect(new URL(page.url()).pathname).toBe('/new-password')
  expect(page.url()).not.toContain('oobCode')
  await expect(page.getByRole('heading', { name: 'Veuillez saisir un nouveau mot de passe' })).toBeVisible()
  await expect(page.getByText(email)).toBeVisible()
  await expect(page.getByText('au moins 12 caractères')).toBeVisible()

  await page.getByLabel('Nouveau mot de passe', { exact: true }).fill(NEW_PASSWORD)
  await page.getByLabel('Confirmer le nouveau mot de passe').fill(NEW_PASSWORD)
  await page.getByRole('button', { name: 'Modifier le mot de passe' }).click()
  await expect(page.getByText('Votre mot de passe a été modifié avec succès\u202f!')).toBeVisible()

  await signIn(page, email, OLD_PASSWORD)
  await expect(page.getByRole('alert')).toHaveText('Adresse électronique ou mot de passe incorrect')
  await signIn(page, email, NEW_PASSWORD)
  await expect(page.getByRole('heading', { name: 'Votre session est ouverte' })).toBeVisible()
})

test.describe('in English', () => {
  test.use({ locale: 'en-US' })

  test('mismatched and weak passwords are explained; only without JavaScript are the fields emptied', async ({
    page,
    admin,
    baseURL,
    javaScriptEnabled,
  }) => {
    const email = uniqueEmail('rules')
    await admin.createUser(email, OLD_PASSWORD)
    await requestReset(page, email, { email: 'Email', submit: 'Send email' })
    await expect(page.getByText('If this email address is valid, you will receive an email to reset your password.')).toBeVisible()
    await page.goto(await admin.emailedLink(email, 'PASSWORD_RESET', baseURL!))
    await expect(page.getByRole('heading', { name: 'Please enter a new password' })).toBeVisible()

    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD)
    await page.getByLabel('Confirm new password').fill(`${NEW_PASSWORD}x`)
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect(page.getByText('Please ensure the password and the confirmation are the same.')).toBeVisible()
    // With JavaScript the mismatch is caught in the page: nothing is sent, nothing is emptied.
    // Without it the server never sends a password back; the rules say what the one sent met.
    const kept = javaScriptEnabled ? NEW_PASSWORD : ''
    await expect(page.getByLabel('New password', { exact: true })).toHaveValue(kept)
    await expect(page.getByLabel('Confirm new password')).toHaveValue(javaScriptEnabled ? `${NEW_PASSWORD}x` : '')
    await expect(page.getByText('Your password must have:')).toBeVisible()
    await expect(page.locator('#password-rules')).toContainText('(met)')
    await expect(page.locator('#password-rules')).not.toContainText('(not met)')

    await page.getByLabel('New password', { exact: true }).fill('Password1234')
    await page.getByLabel('Confirm new password').fill('Password1234')
    await page.getByRole('button', { name: 'Change password' }).click()
    // The page knows the most common words and says how it would be guessed; the server, with the
    // whole list, that it is on it. With JavaScript the fields keep what was typed.
    await expect(page.getByText(javaScriptEnabled ? 'Too easy to guess: a common word' : 'This password is too common')).toBeVisible()
    await expect(page.getByLabel('New password', { exact: true })).toHaveValue(javaScriptEnabled ? 'Password1234' : '')
  })

  test('the link opened twice still works; the second submission finds it spent', { tag: '@once' }, async ({ browser, admin, baseURL }) => {
    const email = uniqueEmail('twice')
    await admin.createUser(email, OLD_PASSWORD)
    const context = await browser.newContext({ locale: 'en-US' })
    const first = await context.newPage()
    await requestReset(first, email, { email: 'Email', submit: 'Send email' })
    await expect(first.getByText('If this email address is valid')).toBeVisible()
    const link = await admin.emailedLink(email, 'PASSWORD_RESET', baseURL!)
    await first.goto(link)
    const second = await context.newPage()
    await second.goto(link)
    await expect(second.getByRole('heading', { name: 'Please enter a new password' })).toBeVisible()

    for (const page of [first, second]) {
      await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD)
      await page.getByLabel('Confirm new password').fill(NEW_PASSWORD)
      await page.getByRole('button', { name: 'Change password' }).click()
    }
    await expect(first.getByText('Your password has been modified successfully!')).toBeVisible()
    await expect(second.getByText('This link is invalid or has expired.')).toBeVisible()
    await context.close()
  })
})

test('an invalid or used code shows the invalid-link message with a way to ask again', async ({ page }) => {
  const response = await page.goto('/new-password?oobCode=not-a-code')
  expect(response?.status()).toBe(400)
  await expect(page.getByText('Ce lien est invalide ou a expiré.')).toBeVisible()
  await expect(page.getByRole('link', { name: 'Demander un autre lien' })).toBeVisible()
})

test.describe('the emailed-link guard', () => {
  test('a reset link goes to /new-password without mode and apiKey', { tag: '@once' }, async ({ request }) => {
    const response = await request.get('/action?mode=resetPassword&oobCode=abc&apiKey=key&lang=fr&continueUrl=x', {
      maxRedirects: 0,
    })
    expect(response.status()).toBe(302)
    expect(response.headers()['location']).toBe('/new-password?oobCode=abc&lang=fr&continueUrl=x')
  })

  // A link without its apiKey is no link the identity service sent.
  for (const query of ['', '?mode=resetPassword', '?mode=bogus&oobCode=abc&apiKey=k', '?mode=resetPassword&oobCode=abc']) {
    test(`/action${query} is an invalid link (400)`, async ({ page }) => {
      const response = await page.goto(`/action${query}`)
      expect(response?.status()).toBe(400)
      await expect(page.getByText('Ce lien est invalide ou a expiré.')).toBeVisible()
    })
  }
})

test('the reset request answers byte-identically for a known and an unknown address', { tag: '@once' }, async ({ request, admin }) => {
  const known = uniqueEmail('known')
  await admin.createUser(known, OLD_PASSWORD)
  const answers = []
  for (const email of [known, uniqueEmail('unknown')]) {
    const post = await postForm(request, '/forgot-password', { email })
    expect(post.status()).toBe(303)
    const page = await request.get(post.headers()['location']!)
    // The address shown back as typed is each request's own; the rest differs only by visitor and moment.
    const normalised = maskServed(await page.text()).replaceAll(email.split('@')[0]!, 'NAME')
    answers.push({ location: post.headers()['location'], status: page.status(), html: normalised })
  }
  expect(answers[0]).toEqual(answers[1])
})

test('no code, password or token reaches the logs over the whole flow', { tag: '@once' }, async ({ playwright }) => {
  const emulatorOrigin = process.env.EMULATOR_ORIGIN!
  const projectId = process.env.EMULATOR_PROJECT_ID!
  const portal = await startPortal({
    FIREBASE_AUTH_EMULATOR_HOST: new URL(emulatorOrigin).host,
    FIREBASE_PROJECT_ID: projectId,
    LOG_LEVEL: 'trace',
  })
  const admin = emulatorAdmin({ origin: emulatorOrigin, projectId })
  const request = await playwright.request.newContext({ baseURL: portal.url })
  try {
    const email = uniqueEmail('logs')
    const { idToken, refreshToken } = await admin.createUser(email, OLD_PASSWORD)
    expect((await postForm(request, '/?index', { email, password: 'Wrong-password-1' })).status()).toBe(400)
    expect((await postForm(request, '/forgot-password', { email })).status()).toBe(303)
    const link = new URL(await admin.emailedLink(email, 'PASSWORD_RESET', portal.url))
    const oobCode = link.searchParams.get('oobCode')!
    await request.get(link.pathname + link.search)
    const csrf = await csrfFrom(request, '/new-password')
    const done = await request.post('/new-password', { form: { csrf, password: NEW_PASSWORD, confirmation: NEW_PASSWORD } })
    expect(await done.text()).toContain('Votre mot de passe a été modifié avec succès\u202f!')
    expect((await postForm(request, '/?index', { email, password: NEW_PASSWORD })).status()).toBe(303)
    expect((await postForm(request, '/logout', {})).status()).toBe(303)

    const logs = portal.output()
    expect(logs).toContain('reset-done')
    for (const secret of [oobCode, OLD_PASSWORD, NEW_PASSWORD, 'Wrong-password-1', idToken, refreshToken, email]) {
      expect(logs).not.toContain(secret)
    }
  } finally {
    await request.dispose()
    await portal.stop()
  }
})

test('a new password ends every session that existed before it', { tag: '@once' }, async ({ request, admin, playwright, baseURL }) => {
  const email = uniqueEmail('revoke')
  await admin.createUser(email, OLD_PASSWORD)
  expect((await postForm(request, '/?index', { email, password: OLD_PASSWORD })).status()).toBe(303)
  const before = await request.storageState()
  // Revocation is recorded to the second: let the sign-in's second pass.
  await intoTheNextSecond()

  expect((await postForm(request, '/forgot-password', { email })).status()).toBe(303)
  const link = new URL(await admin.emailedLink(email, 'PASSWORD_RESET', baseURL!))
  await request.get(link.pathname + link.search)
  const csrf = await csrfFrom(request, '/new-password')
  const done = await request.post('/new-password', { form: { csrf, password: NEW_PASSWORD, confirmation: NEW_PASSWORD } })
  expect(await done.text()).toContain('Votre mot de passe a été modifié avec succès\u202f!')

  const old = await playwright.request.newContext({ baseURL, storageState: before })
  expect(await (await old.get('/')).text()).not.toContain('Votre session est ouverte')
  await old.dispose()
})
