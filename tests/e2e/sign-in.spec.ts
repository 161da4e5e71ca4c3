import { startPortal } from '../../dev/portal'
import { getFreePort } from '../../dev/ports'
import { alertMarkup, postForm } from '../support/http-browser'
import { uniqueEmail } from '../../dev/emulator'
import { expect, test } from './fixtures'
import { intoTheNextSecond } from '../support/next-second'

const PASSWORD = 'Correct-Horse-42'

test.describe('signing in', () => {
  test('correct credentials open a session and the next visit shows it (fr)', async ({ page, admin, context }) => {
    const email = uniqueEmail('signin')
    await admin.createUser(email, PASSWORD)
    await page.goto('/')
    await page.getByLabel('Adresse électronique').fill(email)
    await page.getByLabel('Mot de passe').fill(PASSWORD)
    await page.getByRole('button', { name: 'Se connecter' }).click()
    await expect(page.getByRole('heading', { name: 'Votre session est ouverte' })).toBeVisible()
    await expect(page.getByText(email)).toBeVisible()

    const session = (await context.cookies()).find((c) => c.name === 'session')
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false })
    await page.goto('/')
    await expect(page.getByRole('heading', { name: 'Votre session est ouverte' })).toBeVisible()
  })

  test.describe('in English', () => {
    test.use({ locale: 'en-US' })
    test('a wrong password shows one message, keeps the email and empties the password', async ({ page, admin }) => {
      const email = uniqueEmail('wrong')
      await admin.createUser(email, PASSWORD)
      await page.goto('/')
      await expect(page.getByRole('heading', { name: 'Sign In' })).toBeVisible()
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Password').fill('Not-the-password-1')
      await page.getByRole('button', { name: 'Login' }).click()
      await expect(page.getByRole('alert')).toHaveText('Wrong email address or password')
      await expect(page.getByLabel('Email')).toHaveValue(email)
      await expect(page.getByLabel('Password')).toHaveValue('')
      // The form posts to "/" itself: no "/?index" in the address bar.
      expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/')
    })

    test('typing again after a refusal keeps the focus in the field (the alert takes it only when it comes)', async ({ page, admin, javaScriptEnabled }) => {
      const email = uniqueEmail('refocus')
      await admin.createUser(email, PASSWORD)
      await page.goto('/')
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Password').fill('Not-the-password-1')
      await page.getByRole('button', { name: 'Login' }).click()
      await expect(page.getByRole('alert')).toHaveText('Wrong email address or password')
      if (javaScriptEnabled) await expect(page.getByRole('alert')).toBeFocused()
      await page.getByLabel('Email').click()
      await page.getByLabel('Email').press('End')
      await page.getByLabel('Email').pressSequentially('xy')
      await expect(page.getByLabel('Email')).toBeFocused()
      await expect(page.getByLabel('Email')).toHaveValue(`${email}xy`)
    })

    test('empty fields get field messages without a call', async ({ page }) => {
      await page.goto('/')
      await page.getByRole('button', { name: 'Login' }).click()
      await expect(page.getByText('Please enter your email address.')).toBeVisible()
      await expect(page.getByText('Please enter your password.')).toBeVisible()
      await expect(page.getByLabel('Email')).toHaveAttribute('aria-invalid', 'true')
    })
  })

  test('the browser follows the redirect to an authorized domain (CSP form-action allows it)', async ({ page, admin }) => {
    const email = uniqueEmail('follow')
    await admin.createUser(email, PASSWORD)
    // localhost is one of the emulator project's authorizedDomains; nothing listens on port 9.
    await page.goto('/?redirect=http%3A%2F%2Flocalhost%3A9%2Fafter')
    await page.getByLabel('Adresse électronique').fill(email)
    await page.getByLabel('Mot de passe').fill(PASSWORD)
    const followed = page.waitForRequest('http://localhost:9/after')
    await page.getByRole('button', { name: 'Se connecter' }).click()
    expect((await followed).url()).toBe('http://localhost:9/after')
  })

  test('the forgot-password link carries the email and the redirect', async ({ page, javaScriptEnabled }) => {
    await page.goto('/?redirect=%2Fdone&email=first%40example.com')
    const link = page.getByRole('link', { name: 'Mot de passe oublié\u202f?' })
    await expect(link).toHaveAttribute('href', '/forgot-password?email=first%40example.com&redirect=%2Fdone')
    if (javaScriptEnabled) {
      // With JavaScript the link follows what is typed.
      await page.getByLabel('Adresse électronique').fill('someone@example.com')
      await expect(link).toHaveAttribute('href', '/forgot-password?email=someone%40example.com&redirect=%2Fdone')
    }
  })
})

test.describe('sign-in over HTTP', () => {
  test('success answers 303 with the session cookie and no-store', { tag: '@once' }, async ({ request, admin, baseURL }) => {
    const email = uniqueEmail('http')
    await admin.createUser(email, PASSWORD)
    const response = await postForm(request, '/?index', { email, password: PASSWORD })
    expect(response.status()).toBe(303)
    expect(response.headers()['location']).toBe('/')
    expect(response.headers()['cache-control']).toBe('no-store')
    const cookie = response.headersArray().find((h) => h.name.toLowerCase() === 'set-cookie' && h.value.startsWith('session='))
    expect(cookie?.value).toMatch(/HttpOnly/)
    expect(cookie?.value).toMatch(/SameSite=Lax/)
    expect(cookie?.value).toMatch(/Path=\//)
    expect(cookie?.value).not.toMatch(/Domain=/i)
    expect(baseURL).toMatch(/^http:\/\/localhost/)
  })

  test('a wrong password and an unknown email answer byte-identically', { tag: '@once' }, async ({ request, admin }) => {
    const email = uniqueEmail('enum')
    await admin.createUser(email, PASSWORD)
    const wrong = await postForm(request, '/?index', { email, password: 'Wrong-password-1' })
    const unknown = await postForm(request, '/?index', { email: uniqueEmail('nobody'), password: 'Wrong-password-1' })
    // A refused form, not an HTTP authentication challenge: 400, never a 401 without WWW-Authenticate.
    for (const answer of [wrong, unknown]) {
      expect(answer.status()).toBe(400)
      expect(answer.headers()['www-authenticate']).toBeUndefined()
    }
    const [a, b] = [alertMarkup(await wrong.text()), alertMarkup(await unknown.text())]
    expect(a).toContain('Adresse électronique ou mot de passe incorrect')
    expect(a).toBe(b)
  })

  test('a disabled account gets the same message', { tag: '@once' }, async ({ request, admin }) => {
    const email = uniqueEmail('disabled')
    const { localId } = await admin.createUser(email, PASSWORD)
    await admin.disableUser(localId)
    const response = await postForm(request, '/?index', { email, password: PASSWORD })
    expect(response.status()).toBe(400)
    expect(alertMarkup(await response.text())).toContain('Adresse électronique ou mot de passe incorrect')
  })

  test('a redirect to an authorized domain is followed; an open redirect is refused', { tag: '@once' }, async ({ request, admin }) => {
    const email = uniqueEmail('redirect')
    await admin.createUser(email, PASSWORD)
    const evil = await postForm(request, '/?index', { email, password: PASSWORD, redirect: 'https://evil.example/' }, { formPage: '/?redirect=x' })
    expect(evil.status()).toBe(400)
    expect(alertMarkup(await evil.text())).toContain('URL de redirection invalide')
    const ok = await postForm(request, '/?index', { email, password: PASSWORD, redirect: 'http://localhost:9/after' })
    expect(ok.status()).toBe(303)
    expect(ok.headers()['location']).toBe('http://localhost:9/after')
  })

  test('after logout the old session cookie is rejected', { tag: '@once' }, async ({ request, admin, playwright, baseURL }) => {
    const email = uniqueEmail('logout')
    await admin.createUser(email, PASSWORD)
    const signIn = await postForm(request, '/?index', { email, password: PASSWORD })
    expect(signIn.status()).toBe(303)
    const state = await request.storageState()
    // Revocation is recorded to the second: let the sign-in's second pass.
    await intoTheNextSecond()
    const logout = await postForm(request, '/logout', {})
    expect(logout.status()).toBe(303)
    // Only named cookies expire: Clear-Site-Data would erase the preferences and the device cookie too.
    expect(logout.headers()['clear-site-data']).toBeUndefined()

    const replay = await playwright.request.newContext({ baseURL, storageState: state })
    const page = await replay.get('/')
    expect(await page.text()).not.toContain('Votre session est ouverte')
    await replay.dispose()
  })

  test('an identity service that is down gives 503 and the unexpected-error message', { tag: '@once' }, async ({ playwright }) => {
    const closedPort = await getFreePort()
    const portal = await startPortal({ FIREBASE_AUTH_EMULATOR_HOST: `127.0.0.1:${closedPort}`, IDENTITY_TIMEOUT_MS: '2000' })
    try {
      const request = await playwright.request.newContext({ baseURL: portal.url })
      const response = await postForm(request, '/?index', { email: 'a@example.com', password: 'whatever-1' })
      expect(response.status()).toBe(503)
      const html = await response.text()
      expect(alertMarkup(html)).toContain('Une erreur inattendue s’est produite')
      expect(html).not.toMatch(/at \w+ \(|node_modules|Error:/)
      expect(response.headersArray().some((h) => h.name.toLowerCase() === 'set-cookie' && h.value.startsWith('session='))).toBe(false)
      await request.dispose()
    } finally {
      await portal.stop()
    }
  })
})
