import { expect, test } from './fixtures'

test.describe('language', () => {
  test.describe('with an English browser', () => {
    test.use({ locale: 'en-US' })

    test('Accept-Language: en renders English', async ({ page }) => {
      await page.goto('/')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign In')
      await expect(page.locator('html')).toHaveAttribute('lang', 'en-US')
    })

    test('the i18n_redirected cookie beats the header', async ({ page, context, baseURL }) => {
      await context.addCookies([{ name: 'i18n_redirected', value: 'fr', url: baseURL! }])
      await page.goto('/')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Connexion')
      await expect(page.locator('html')).toHaveAttribute('lang', 'fr-FR')
    })
  })

  test('no Accept-Language renders French', { tag: '@once' }, async ({ baseURL }) => {
    const response = await fetch(`${baseURL}/`)
    const html = await response.text()
    expect(html).toContain('<html lang="fr-FR"')
    expect(html).toContain('<h1>Connexion</h1>')
  })

  test('q-values decide between the languages', { tag: '@once' }, async ({ baseURL }) => {
    const response = await fetch(`${baseURL}/`, { headers: { 'Accept-Language': 'de;q=1, fr;q=0.4, en;q=0.8' } })
    expect(await response.text()).toContain('<h1>Sign In</h1>')
  })

  test('the switch changes the language and keeps the address', async ({ page, javaScriptEnabled, context }) => {
    await page.goto('/forgot-password?email=kept%40example.com&redirect=%2Fnext')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Veuillez saisir votre adresse électronique')
    if (javaScriptEnabled) await page.getByLabel('Adresse électronique').fill('typed@example.com')
    await page.getByRole('button', { name: 'English', exact: true }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Please enter your email address')
    await expect(page.locator('html')).toHaveAttribute('lang', 'en-US')
    expect(new URL(page.url()).search).toBe('?email=kept%40example.com&redirect=%2Fnext')
    // With JavaScript the page changed in place: what was typed is still there.
    await expect(page.getByLabel('Email')).toHaveValue(javaScriptEnabled ? 'typed@example.com' : 'kept@example.com')
    const cookie = (await context.cookies()).find((c) => c.name === 'i18n_redirected')
    expect(cookie).toMatchObject({ value: 'en', path: '/', sameSite: 'Lax' })
    expect(cookie!.expires - Date.now() / 1000).toBeGreaterThan(364 * 24 * 3600)

    await page.getByRole('button', { name: 'Français', exact: true }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Veuillez saisir votre adresse électronique')
  })

  test('a page fetches its own language’s strings alone; the switch fetches the other, title included @js-only', async ({
    page,
  }) => {
    const strings: string[] = []
    page.on('request', (request) => {
      if (/\/assets\/common-[\w-]+\.json$/.test(request.url())) strings.push(request.url())
    })
    await page.goto('/forgot-password')
    await expect(page).toHaveTitle(/^Veuillez saisir votre adresse électronique · /)
    await expect.poll(() => strings.length, 'the French strings, fetched once').toBe(1)
    await page.getByRole('button', { name: 'English', exact: true }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Please enter your email address')
    await expect(page).toHaveTitle(/^Please enter your email address · /)
    expect(strings, 'then the English ones').toHaveLength(2)
    expect(strings[1]).not.toBe(strings[0])
  })
})

test.describe('the error page', () => {
  test('an unknown path answers 404 with the path, in French, and logs no error', async ({ page, javaScriptEnabled }) => {
    const logged: string[] = []
    page.on('console', (message) => {
      if (!message.text().startsWith('Failed to load resource')) logged.push(`${message.type()}: ${message.text()}`)
    })
    const response = await page.goto('/nope?x=1')
    expect(response?.status()).toBe(404)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page introuvable /nope?x=1')
    await expect(page.locator('#auth-portal-app')).toBeVisible()
    await expect(page.getByRole('banner').getByRole('link', { name: 'Portail d’authentification' })).toBeVisible()
    await expect(page.getByRole('link', { name: 'Retour à la connexion' })).toHaveAttribute('href', '/')
    // With JavaScript, the error page writes a readable line, never console.error.
    if (javaScriptEnabled) await expect.poll(() => logged).toEqual(['info: 404 /nope'])
  })

  test.describe('in English', () => {
    test.use({ locale: 'en-US' })
    test('an unknown path answers 404 with the path, in English', async ({ page }) => {
      const response = await page.goto('/some/where?x=1')
      expect(response?.status()).toBe(404)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page not found /some/where?x=1')
    })
  })
})

test('the privacy notice, once accepted, never shows again', async ({ page, context }) => {
  await page.goto('/?redirect=%2Fnext')
  const notice = page.getByRole('region', { name: 'Politique de confidentialité' })
  await expect(notice).toContainText('Ce site utilise des cookies')
  await expect(notice.getByRole('link', { name: 'Politique de confidentialité' })).toHaveAttribute('href', /^https:\/\//)
  await notice.getByRole('button', { name: 'J’ai compris' }).click()
  await expect(notice).toHaveCount(0)
  expect(new URL(page.url()).search).toBe('?redirect=%2Fnext')
  // With JavaScript the notice goes at once and the cookie follows when the fetcher's answer arrives.
  await expect.poll(async () => (await context.cookies()).some((c) => c.name === 'cookie_consent')).toBe(true)
  await page.goto('/forgot-password')
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
  await expect(page.getByRole('region', { name: 'Politique de confidentialité' })).toHaveCount(0)
})

for (const [locale, heading, message] of [
  ['fr-FR', 'Connexion', 'Veuillez activer les cookies de ce site dans votre navigateur pour continuer.'],
  ['en-US', 'Sign In', 'Please enable cookies for this site in your browser to continue.'],
] as const) {
  test.describe(`a browser refusing cookies (${locale})`, () => {
    test.use({ locale })
    test('is told, after the heading, to allow this site’s cookies (first-party) @js-only', async ({ page }) => {
      await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'cookieEnabled', { get: () => false }))
      await page.goto('/')
      const warning = page.getByRole('alert')
      await expect(warning).toContainText(message)
      await expect(warning).not.toContainText(/third-party|tiers/)
      const h1 = page.getByRole('heading', { level: 1 })
      await expect(h1).toHaveText(heading)
      const order = await h1.evaluate((title, alert) => title.compareDocumentPosition(alert!), await warning.elementHandle())
      expect(order & 4, 'the warning follows the heading').toBe(4)
      // Still after the heading on the next page.
      await page.getByRole('link', { name: /Mot de passe oublié|Forgot password/ }).click()
      await expect(page.getByRole('heading', { level: 1 })).not.toHaveText(heading)
      await expect(page.getByRole('alert')).toHaveCount(1)
      const next = await page.getByRole('heading', { level: 1 }).evaluate((title, alert) => title.compareDocumentPosition(alert!), await page.getByRole('alert').elementHandle())
      expect(next & 4).toBe(4)
    })
  })
}

test('the brand logo and the container are on every page', async ({ page }) => {
  for (const path of ['/', '/forgot-password', '/new-password', '/logout']) {
    await page.goto(path)
    await expect(page.locator('#auth-portal-app')).toBeVisible()
    await expect(page.getByRole('banner').getByRole('link', { name: 'Portail d’authentification' })).toHaveAttribute('href', '/')
  }
})

test.describe('a page whose script cannot be loaded (a deploy replaced it)', () => {
  test.use({ consoleErrorsExpected: true })

  test('a link still takes the visitor to the page they asked for', async ({ page }) => {
    await page.goto('/')
    await page.route(/\/assets\/forgot-password-[^/]+\.js$/, (route) => route.abort())
    await page.getByRole('link', { name: 'Mot de passe oublié\u202f?' }).click()
    await expect(page).toHaveURL(/\/forgot-password$/)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Veuillez saisir votre adresse électronique')
  })

  test('when the reload guard gives up, the visitor is told which address failed and can retry @js-only', async ({
    page,
    baseURL,
  }) => {
    // The guard allows one reload per 10 s, measured with Date.now(): frozen, the second failure
    // falls inside it however slow the machine.
    await page.clock.setFixedTime(new Date())
    await page.route(/\/assets\/forgot-password-[^/]+\.js$/, (route) => route.abort())
    const hydrated = () => page.waitForFunction(() => '__reactRouterDataRouter' in window)
    const forgot = page.getByRole('link', { name: 'Mot de passe oublié\u202f?' })

    // The first failure reloads at the target: its page arrives from the server (its script still fails).
    await page.goto('/')
    await hydrated()
    await forgot.click()
    await expect(page).toHaveURL(/\/forgot-password$/)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Veuillez saisir votre adresse électronique')

    // The second, within the guard's 10 s: no more reloads, the access error instead.
    await page.getByRole('link', { name: 'Retour à la connexion' }).click()
    await expect(page).toHaveURL(/\/$/)
    await hydrated()
    await forgot.click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(
      `Une erreur s’est produite lors de l’accès à ce site\u00a0: «\u00a0${baseURL}/forgot-password\u00a0»`,
    )
    const retry = page.getByRole('link', { name: 'Réessayer' })
    await expect(retry).toHaveAttribute('href', '/forgot-password')
    await expect(page.getByRole('link', { name: 'Retour à la connexion' })).toHaveAttribute('href', '/')

    // Retrying is a full page load: the page the visitor asked for, from the server.
    await retry.click()
    await expect(page).toHaveURL(/\/forgot-password$/)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Veuillez saisir votre adresse électronique')
  })
})

test.describe('keys pressed before the page is interactive', () => {
  test('what was typed while the page’s data was arriving is kept', async ({ page, javaScriptEnabled }) => {
    // The page's data reaches its script 1.5 s late: the visitor types before the page hydrates.
    await page.route('/', async (route) => {
      const response = await route.fetch()
      const body = (await response.text()).replace(
        /window\.__reactRouterContext\.streamController\.(enqueue\([^<]*\)|close\(\));/g,
        'setTimeout(() => window.__reactRouterContext.streamController.$1, 1500);',
      )
      await route.fulfill({ response, body })
    })
    await page.goto('/')
    await page.getByLabel('Adresse électronique').pressSequentially('early@example.com')
    await page.getByLabel('Mot de passe').pressSequentially('Wrong-password-1')
    // Hydrated once its data came (the password field gets its toggle); without JavaScript nothing changes the page.
    if (javaScriptEnabled) await expect(page.getByRole('button', { name: 'Afficher le mot de passe' })).toBeVisible()
    await expect(page.getByLabel('Adresse électronique')).toHaveValue('early@example.com')
    if (javaScriptEnabled) {
      await expect(page.getByRole('link', { name: 'Mot de passe oublié\u202f?' })).toHaveAttribute('href', /email=early%40example\.com/)
    }
    await page.getByRole('button', { name: 'Se connecter' }).click()
    await expect(page.getByRole('alert')).toHaveText('Adresse électronique ou mot de passe incorrect')
    await expect(page.getByLabel('Adresse électronique')).toHaveValue('early@example.com')
    if (javaScriptEnabled) await expect(page.getByRole('alert')).toBeFocused()
  })

  test('a key pressed as hydration starts does not crash the page', async ({ page, javaScriptEnabled }) => {
    // React schedules hydration with a MessageChannel message. A key event dispatched just before
    // that message runs makes React hydrate synchronously; if the page then suspended (React Router waiting
    // for its data), React aborted with error #345, which the console-error fixture reports.
    await page.addInitScript(() => {
      const post = MessagePort.prototype.postMessage
      let sent = false
      MessagePort.prototype.postMessage = function (this: MessagePort, ...args: Parameters<MessagePort['postMessage']>) {
        // After the current script (hydrateRoot marks the document only after scheduling).
        queueMicrotask(() => {
          if (sent || !Object.keys(document).some((key) => key.startsWith('__reactContainer$'))) return
          sent = true
          const email = document.querySelector('input[name="email"]')
          email?.dispatchEvent(new KeyboardEvent('keydown', { bubbles: true, key: 'a' }))
        })
        return post.apply(this, args)
      } as MessagePort['postMessage']
    })
    await page.goto('/')
    await page.getByLabel('Adresse électronique').fill('someone@example.com')
    await page.getByLabel('Mot de passe').fill('Wrong-password-1')
    await page.getByRole('button', { name: 'Se connecter' }).click()
    await expect(page.getByRole('alert')).toHaveText('Adresse électronique ou mot de passe incorrect')
    if (javaScriptEnabled) await expect(page.getByRole('alert')).toBeFocused()
  })
})
