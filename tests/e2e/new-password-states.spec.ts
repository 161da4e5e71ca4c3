import type { Page } from '@playwright/test'
import { uniqueEmail } from '../../dev/emulator'
import { type Admin, expect, test } from './fixtures'

/**
 * The new-password page follows its state, with JavaScript and without: the form, the
 * password changed, a link that no longer works. Each heading and title says which; the address
 * keeps nothing of the emailed link but the `redirect` a sign-in needs.
 */
const OLD = 'Old-password-2024'
const NEW = 'Brand-new-Secret-77'

/** Asks for a reset on the page (with `redirect` when given) and opens the emailed link, as sent: `lang`, `continueUrl` and all. */
async function openEmailedLink(
  page: Page,
  admin: Admin,
  baseURL: string,
  labels: { email: string; submit: string },
  redirect?: string,
) {
  const email = uniqueEmail('np-states')
  await admin.createUser(email, OLD)
  await page.goto(`/forgot-password${redirect ? `?${new URLSearchParams({ redirect })}` : ''}`)
  await page.getByLabel(labels.email).fill(email)
  await page.getByRole('button', { name: labels.submit }).click()
  await expect(page.getByRole('status')).toBeVisible()
  await expect.poll(async () => (await admin.oobCodes()).some((c) => c.email === email)).toBe(true)
  const link = new URL((await admin.oobCodes()).filter((c) => c.email === email).at(-1)!.oobLink)
  // The emulator's link names the language the email was written in; French pages must not keep it.
  link.searchParams.set('lang', 'en')
  await page.goto(`${baseURL}/action${link.search}`)
  return email
}

test('set, the new password heads and titles the page, with a sign-in button, on a clean address (fr)', async ({
  page,
  admin,
  baseURL,
}) => {
  await openEmailedLink(page, admin, baseURL!, { email: 'Adresse électronique', submit: 'Envoyer le courriel' })
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Veuillez saisir un nouveau mot de passe')
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/new-password')

  await page.getByLabel('Nouveau mot de passe', { exact: true }).fill(NEW)
  await page.getByLabel('Confirmer le nouveau mot de passe').fill(NEW)
  await page.getByRole('button', { name: 'Modifier le mot de passe' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Mot de passe modifié')
  await expect(page).toHaveTitle(/^Mot de passe modifié · /)
  await expect(page.getByRole('status')).toHaveText('Votre mot de passe a été modifié avec succès\u202f!')
  await expect(page.getByText('Veuillez saisir un nouveau mot de passe')).toHaveCount(0)
  // The address: no query, so no `lang=en` on this French page.
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/new-password')
  // 'Se connecter' is the page's one action, drawn as a button.
  const signIn = page.getByRole('link', { name: 'Se connecter' })
  await expect(signIn).toHaveClass(/\bbutton-primary\b/)
  await expect(signIn).toHaveAttribute('href', '/')
  // A refresh sends nothing again and still says so.
  await page.reload()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Mot de passe modifié')
  // Said once: the heading, the message, the one action.
  const lines = (await page.getByRole('main').innerText()).split('\n').map((line) => line.trim()).filter(Boolean)
  expect(lines).toEqual(['Mot de passe modifié', 'Votre mot de passe a été modifié avec succès\u202f!', 'Se connecter'])
})

test.describe('in English', () => {
  test.use({ locale: 'en-US' })

  test('an invalid or expired link heads and titles the page as such', async ({ page }) => {
    const response = await page.goto('/new-password?oobCode=not-a-code&lang=fr')
    expect(response?.status()).toBe(400)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Link expired or already used')
    await expect(page).toHaveTitle(/^Link expired or already used · /)
    await expect(page.getByRole('alert')).toHaveText('This link is invalid or has expired.')
    await expect(page.getByText('Please enter a new password')).toHaveCount(0)
    await expect(page.getByRole('link', { name: 'Request a new link' })).toHaveClass(/\bbutton-primary\b/)
    expect(new URL(page.url()).search).toBe('')
  })

  test('the sign-in the link was for travels as `redirect` alone, to the sign-in button', async ({
    page,
    admin,
    baseURL,
  }) => {
    const target = `${baseURL}/after-reset`
    await openEmailedLink(page, admin, baseURL!, { email: 'Email', submit: 'Send email' }, target)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Please enter a new password')
    expect(new URL(page.url()).search).toBe(`?${new URLSearchParams({ redirect: target })}`)
    await page.getByLabel('New password', { exact: true }).fill(NEW)
    await page.getByLabel('Confirm new password').fill(NEW)
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Password changed')
    await expect(page).toHaveTitle(/^Password changed · /)
    expect(new URL(page.url()).search).toBe(`?${new URLSearchParams({ redirect: target })}`)
    await expect(page.getByRole('link', { name: 'Sign in' })).toHaveAttribute(
      'href',
      `/?${new URLSearchParams({ redirect: target })}`,
    )
  })

  test('each error sits under its own field, tied to it', async ({ page, admin, baseURL }) => {
    await openEmailedLink(page, admin, baseURL!, { email: 'Email', submit: 'Send email' })
    await page.getByLabel('New password', { exact: true }).fill('short')
    await page.getByLabel('Confirm new password').fill('other')
    await page.getByRole('button', { name: 'Change password' }).click()
    const password = page.getByLabel('New password', { exact: true })
    const confirmation = page.getByLabel('Confirm new password')
    await expect(password).toHaveAttribute('aria-invalid', 'true')
    await expect(password).toHaveAccessibleDescription(/^Your password must have at least 12 characters\./)
    await expect(confirmation).toHaveAttribute('aria-invalid', 'true')
    await expect(confirmation).toHaveAccessibleDescription(
      'Please ensure the password and the confirmation are the same.',
    )
    // Right under its field: the error comes before the rules.
    const error = page.getByText('Your password must have at least 12 characters.')
    const rules = page.getByText('Your password must have:')
    expect((await error.boundingBox())!.y).toBeLessThan((await rules.boundingBox())!.y)
  })

  test('the rules are a checklist that ticks as the visitor types @js-only', async ({ page, admin, baseURL }) => {
    await openEmailedLink(page, admin, baseURL!, { email: 'Email', submit: 'Send email' })
    const rules = page.getByRole('list').first()
    await expect(rules.getByRole('listitem').filter({ hasText: /^lower case a-z/ })).not.toContainText('(met)')
    await page.getByLabel('New password', { exact: true }).fill('abcdefG1')
    await expect(rules.getByRole('listitem').filter({ hasText: /^lower case a-z/ })).toContainText('(met)')
    await expect(rules.getByRole('listitem').filter({ hasText: /^digits 0-9/ })).toContainText('(met)')
    await expect(rules.getByRole('listitem').filter({ hasText: /^special characters/ })).toContainText('(not met)')
    await expect(rules.getByRole('listitem').filter({ hasText: /^at least 12 characters/ })).toContainText('(not met)')
    await page.getByLabel('New password', { exact: true }).fill('abcdefG1-xyz')
    await expect(rules.getByRole('listitem').filter({ hasText: /^at least 12 characters/ })).toContainText('(met)')
  })

  test('with JavaScript a broken rule is said before anything is sent, and both fields keep what was typed @js-only', async ({
    page,
    admin,
    baseURL,
  }) => {
    await openEmailedLink(page, admin, baseURL!, { email: 'Email', submit: 'Send email' })
    const posts: string[] = []
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url())
    })
    const password = page.getByLabel('New password', { exact: true })
    const confirmation = page.getByLabel('Confirm new password')
    await password.fill('abcdefghijklmno')
    await confirmation.fill('abcdefghijklmno')
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect(password).toHaveAttribute('aria-invalid', 'true')
    await expect(password).toHaveAccessibleDescription(/^Your password must mix at least 3 of the 4 types of characters\./)
    await expect(password).toBeFocused()
    await expect(password).toHaveValue('abcdefghijklmno')
    await expect(confirmation).toHaveValue('abcdefghijklmno')
    const rules = page.getByRole('list').first()
    await expect(rules.getByRole('listitem').filter({ hasText: /^at least 12 characters/ })).toContainText('(met)')
    await expect(rules.getByRole('listitem').filter({ hasText: /^upper case A-Z/ })).toContainText('(not met)')
    expect(posts, 'nothing was sent').toEqual([])

    // The confirmation too, before sending.
    await password.fill('Tundra-mosaic-Violet-48')
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect(confirmation).toBeFocused()
    await expect(confirmation).toHaveAccessibleDescription('Please ensure the password and the confirmation are the same.')
    await expect(password).toHaveValue('Tundra-mosaic-Violet-48')
    expect(posts).toEqual([])
  })

  test('without JavaScript the answer to a rejected password names each unmet rule in the checklist @no-js-only', async ({
    page,
    admin,
    baseURL,
  }) => {
    await openEmailedLink(page, admin, baseURL!, { email: 'Email', submit: 'Send email' })
    await page.getByLabel('New password', { exact: true }).fill('abcdefghijklmno')
    await page.getByLabel('Confirm new password').fill('abcdefghijklmno')
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect(page.getByText('Your password must mix at least 3 of the 4 types of characters.')).toBeVisible()
    // The password never comes back into the page; what it missed does.
    await expect(page.getByLabel('New password', { exact: true })).toHaveValue('')
    expect(await page.content()).not.toContain('abcdefghijklmno')
    const rules = page.getByRole('list').first()
    const item = (start: RegExp) => rules.getByRole('listitem').filter({ hasText: start })
    await expect(item(/^at least 12 characters/)).toContainText('(met)')
    await expect(item(/^at least 3 of 4 character types/)).toContainText('(not met)')
    await expect(item(/^lower case a-z/)).toContainText('(met)')
    await expect(item(/^upper case A-Z/)).toContainText('(not met)')
    await expect(item(/^digits 0-9/)).toContainText('(not met)')
    await expect(item(/^special characters/)).toContainText('(not met)')
    // Seen as well as said: a rule the password missed is marked in the error's colour.
    const errorColour = await page
      .getByText('Your password must mix at least 3 of the 4 types of characters.')
      .evaluate((element) => getComputedStyle(element).color)
    const marker = (start: RegExp) => item(start).evaluate((element) => getComputedStyle(element, '::before').borderColor)
    expect(await marker(/^upper case A-Z/)).toBe(errorColour)
    expect(await marker(/^lower case a-z/)).not.toBe(errorColour)
  })

  test('without JavaScript the rules read as a plain list, none ticked @no-js-only', async ({
    page,
    admin,
    baseURL,
  }) => {
    await openEmailedLink(page, admin, baseURL!, { email: 'Email', submit: 'Send email' })
    const rules = page.getByRole('list').first()
    for (const text of [
      'at least 12 characters',
      'at least 3 of 4 character types:',
      'lower case a-z',
      'upper case A-Z',
      'digits 0-9',
      'special characters (e.g. !@#$%^*€)',
    ]) {
      await expect(rules.getByText(text)).toBeVisible()
    }
    await expect(rules).not.toContainText('met)')
  })

  test('"Password1234!" is refused as too easy to guess, saying why, in the checklist too', async ({
    page,
    admin,
    baseURL,
    javaScriptEnabled,
  }) => {
    await openEmailedLink(page, admin, baseURL!, { email: 'Email', submit: 'Send email' })
    const posts: string[] = []
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url())
    })
    await page.getByLabel('New password', { exact: true }).fill('Password1234!')
    await page.getByLabel('Confirm new password').fill('Password1234!')
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect(page.getByLabel('New password', { exact: true })).toHaveAccessibleDescription(
      /^Too easy to guess: a common word or password, even with capitals, digits or symbols added\./,
    )
    const guess = page.getByRole('list').first().getByRole('listitem').filter({ hasText: /^nothing easy to guess/ })
    await expect(guess).toContainText('(not met)')
    // With JavaScript the page knew before sending; without it, the server said so.
    expect(posts).toHaveLength(javaScriptEnabled ? 0 : 1)
  })
})
