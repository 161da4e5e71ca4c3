import type { Page } from '@playwright/test'
import { uniqueEmail } from '../../dev/emulator'
import { expect, test, oneModePerLanguage } from './fixtures'

/**
 * Headings and titles follow the page's state, with JavaScript and without: a sent
 * reset email is no longer a request for an address, a signed-in page is no longer a sign-in form.
 */
const PASSWORD = 'States-Pass-2026'

test('the reset request, once sent, is headed and titled by what happens next (fr)', async ({ page }) => {
  await page.goto('/forgot-password')
  await expect(page).toHaveTitle(/^Veuillez saisir votre adresse électronique · /)
  await page.getByLabel('Adresse électronique').fill(uniqueEmail('states'))
  await page.getByRole('button', { name: 'Envoyer le courriel' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Réinitialisation demandée')
  await expect(page).toHaveTitle(/^Réinitialisation demandée · /)
  await expect(page.getByText('Veuillez saisir votre adresse électronique')).toHaveCount(0)
})

test.describe('in English', () => {
  test.use({ locale: 'en-US' })

  test('the reset request, once sent', async ({ page }) => {
    await page.goto('/forgot-password')
    await page.getByLabel('Email').fill(uniqueEmail('states'))
    await page.getByRole('button', { name: 'Send email' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Password reset requested')
    await expect(page).toHaveTitle(/^Password reset requested · /)
  })

  test('the signed-in page is titled as such', async ({ page, admin }) => {
    const email = uniqueEmail('states')
    await admin.createUser(email, PASSWORD)
    await page.goto('/')
    await expect(page).toHaveTitle(/^Sign In · /)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Login' }).click()
    await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
    await expect(page).toHaveTitle(/^You are signed in · /)
  })

  test('the signed-in page shows the whole account address, the way on, and logging out second', async ({
    page,
    admin,
    baseURL,
  }) => {
    const email = `a-rather-long-address-${Date.now().toString(36)}@a-long-company-domain.example.com`
    await admin.createUser(email, PASSWORD)
    await page.setViewportSize({ width: 320, height: 640 })
    await page.goto('/')
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Login' }).click()
    await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
    // No continueUrl and no DEFAULT_REDIRECT_URL: logging out is the only action.
    await expect(page.getByRole('link', { name: /^Continue to/ })).toHaveCount(0)

    await page.goto(`/?${new URLSearchParams({ continueUrl: `${baseURL}/app/home` })}`)
    // Whole at 320 px: wrapped rather than cut (tests/e2e/account-address.spec.ts measures it).
    const account = page.getByText(email, { exact: true })
    const box = await account.evaluate((element) => {
      const block = element.parentElement!
      return { overflow: block.scrollWidth > block.clientWidth, ellipsis: getComputedStyle(block).textOverflow === 'ellipsis' }
    })
    expect(box).toEqual({ overflow: false, ellipsis: false })
    const onward = page.getByRole('link', { name: `Continue to ${new URL(baseURL!).host}` })
    await expect(onward).toHaveAttribute('href', `${baseURL}/app/home`)
    await expect(onward).toHaveClass(/\bbutton-primary\b/)
    const logout = page.getByRole('button', { name: 'Log out' })
    await expect(logout).toHaveClass(/\bbutton-secondary\b/)
    expect((await onward.boundingBox())!.y).toBeLessThan((await logout.boundingBox())!.y)
  })

  test('a continueUrl the redirect policy refuses is no way on', async ({ page, admin }) => {
    const email = uniqueEmail('states')
    await admin.createUser(email, PASSWORD)
    await page.goto('/')
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Login' }).click()
    await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
    await page.goto(`/?${new URLSearchParams({ continueUrl: 'https://evil.example.net/' })}`)
    await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
    await expect(page.getByRole('link', { name: /^Continue to/ })).toHaveCount(0)
  })
})

// The error page writes the error to the console.
test.describe('the 404 page', () => {
  test.use({ consoleErrorsExpected: true })

  test('the 404 page in French', async ({ page }) => {
    await page.goto('/pas/ici')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page introuvable /pas/ici')
    await expect(page.getByText('Cette page n’existe pas, ou elle a été déplacée.')).toBeVisible()
    await expect(page.getByRole('link', { name: 'Retour à la connexion' })).toBeVisible()
  })

  test.describe('in English', () => {
    test.use({ locale: 'en-US' })

    test('the 404 page keeps its heading, sets the path apart and leads back to sign-in', async ({ page }) => {
      const response = await page.goto('/no/such/page?x=1')
      expect(response?.status()).toBe(404)
      const heading = page.getByRole('heading', { level: 1 })
      await expect(heading).toHaveText('Page not found /no/such/page?x=1')
      await expect(heading.locator('code')).toHaveText('/no/such/page?x=1')
      await expect(page.getByText('This page doesn’t exist, or it has moved.')).toBeVisible()
      await page.getByRole('link', { name: 'Back to login page' }).click()
      await expect(page.getByRole('heading', { name: 'Sign In' })).toBeVisible()
    })
  })
})

/** The card's visible text, line by line: what a visitor reads, each thing once. */
const cardLines = async (page: Page) =>
  (await page.getByRole('main').innerText()).split('\n').map((line) => line.trim()).filter(Boolean)

test.describe('in English, each page says a thing once', () => {
  test.use({ locale: 'en-US' })

  test('an expired or invalid link looks alike on /new-password and /action: heading, one sentence, its own one action', async ({
    page,
  }) => {
    const dead = ['Link expired or already used', 'This link is invalid or has expired.']
    await page.goto('/new-password?oobCode=not-a-code')
    expect(await cardLines(page)).toEqual([...dead, 'Request a new link', 'Back to login page'])
    await expect(page.getByRole('link', { name: 'Request a new link' })).toHaveClass(/\bbutton-primary\b/)
    // A verification link's way forward is the account page's (expired-links.spec.ts), with a line saying why.
    await page.goto('/action?mode=verifyEmail&oobCode=not-a-code&apiKey=x')
    const why = 'Your account page says whether your address is verified, and sends a new link if it is not.'
    expect(await cardLines(page)).toEqual([...dead, why, 'Go to your account', 'Back to login page'])
    await expect(page.getByRole('link', { name: 'Go to your account' })).toHaveClass(/\bbutton-primary\b/)
  })
})

// The specification's 'Invalid redirect URL' stays, explained for a person, with a way on.
for (const l of [
  {
    lang: 'fr',
    locale: 'fr-FR',
    help: 'Le lien qui vous a mené ici demande à vous emmener, après la connexion, vers un site que ce portail ne connaît pas.',
    wayOn: 'Se connecter et rester sur ce portail',
    title: 'Connexion',
  },
  {
    lang: 'en',
    locale: 'en-US',
    help: 'The link that brought you here asks to take you on to a site this portal does not know, after you sign in.',
    wayOn: 'Sign in and stay on this portal',
    title: 'Sign In',
  },
] as const) {
  test.describe(`a refused redirect (${l.lang})`, oneModePerLanguage(l.lang), () => {
    test.use({ locale: l.locale })

    test('says what happened and what to do, with a link to the sign-in page without it', async ({ page }) => {
      await page.goto(`/?${new URLSearchParams({ redirect: 'https://evil.example/' })}`)
      await expect(page).toHaveTitle(new RegExp(`^${l.title} · `))
      const alert = page.getByRole('alert')
      await expect(alert).toContainText(l.lang === 'fr' ? 'URL de redirection invalide' : 'Invalid redirect URL')
      await expect(alert).toContainText(l.help)
      await alert.getByRole('link', { name: l.wayOn }).click()
      await expect(page).toHaveURL(/\/$/)
      await expect(page.getByRole('alert')).toHaveCount(0)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.title)
    })
  })
}
