import { uniqueEmail } from '../../dev/emulator'
import { expect, signIn, test } from './fixtures'

const PASSWORD = 'Correct-Horse-42'

test('logout ends the session and keeps the language, the privacy notice and the device cookie', async ({
  page,
  admin,
  context,
}) => {
  const email = uniqueEmail('logout-keeps')
  await admin.createUser(email, PASSWORD)
  await page.goto('/')
  await page.getByRole('button', { name: 'English', exact: true }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign In')
  const notice = page.getByRole('region', { name: 'Privacy policy' })
  await notice.getByRole('button', { name: 'I understand' }).click()
  await expect(notice).toHaveCount(0)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Login' }).click()
  await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
  const before = new Map((await context.cookies()).map((c) => [c.name, c.value]))
  expect([...before.keys()]).toEqual(expect.arrayContaining(['session', 'device', 'i18n_redirected', 'cookie_consent']))

  await page.getByRole('button', { name: 'Log out' }).click()
  await expect(page.getByText('Your session in this browser has ended.')).toBeVisible()

  // What a real Chromium kept, not what the answer's headers say.
  const after = new Map((await context.cookies()).map((c) => [c.name, c.value]))
  expect(after.has('session')).toBe(false)
  expect(after.get('i18n_redirected')).toBe('en')
  expect(after.get('cookie_consent')).toBe(before.get('cookie_consent'))
  expect(after.get('device')).toBe(before.get('device'))

  await page.goto('/')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign In')
  await expect(page.getByRole('region', { name: 'Privacy policy' })).toHaveCount(0)
})

test('logout answers with a redirect to its own page, which a reload shows again without posting', async ({ page, admin }) => {
  const email = uniqueEmail('logout-prg')
  await admin.createUser(email, PASSWORD)
  await signIn(page, email, PASSWORD)
  await page.goto('/logout')
  const posted = page.waitForResponse((response) => response.request().method() === 'POST')
  await page.getByRole('button', { name: 'Se déconnecter', exact: true }).click()
  const answer = await posted
  // With JavaScript the post is a data request, whose redirect React Router follows.
  if (answer.url().endsWith('/logout')) expect([answer.status(), answer.headers()['location']]).toEqual([303, '/logout'])
  await expect(page.getByRole('status')).toHaveText('Ce navigateur n’a plus accès à votre compte.')
  expect(new URL(page.url()).pathname).toBe('/logout')

  const methods: string[] = []
  page.on('request', (request) => methods.push(request.method()))
  await page.reload()
  await expect(page.getByRole('status')).toHaveText('Ce navigateur n’a plus accès à votre compte.')
  expect(methods).not.toContain('POST')
})

// The heading is the question before, the state after, and the title follows it.
for (const l of [
  { lang: 'fr', before: 'Déconnexion', after: 'Votre session est fermée', button: 'Se déconnecter' },
  { lang: 'en', before: 'Log out', after: 'You are signed out', button: 'Log out' },
] as const) {
  test(`the logout heading says "${l.before}", then "${l.after}" once done (${l.lang})`, async ({ page, admin }) => {
    const email = uniqueEmail('logout-heading')
    await admin.createUser(email, PASSWORD)
    await signIn(page, email, PASSWORD)
    if (l.lang === 'en') {
      await page.getByRole('button', { name: 'English', exact: true }).click()
      await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
    }
    await page.goto('/logout')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.before)
    await expect(page).toHaveTitle(new RegExp(`^${l.before} · `))
    await page.getByRole('button', { name: l.button, exact: true }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.after)
    await expect(page).toHaveTitle(new RegExp(`^${l.after} · `))
    await expect(page.getByRole('button', { name: l.button, exact: true })).toHaveCount(0)
  })
}
