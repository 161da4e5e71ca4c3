import { uniqueEmail } from '../../dev/emulator'
import { postForm } from '../support/http-browser'
import { claimsFor, providerAnswer, startSso } from '../support/sso-provider'
import { wcagViolations } from './axe'
import { everyWayPortal, expect, ssoTestOn, oneModePerLanguage } from './fixtures'

/**
 * Single sign-on through the Auth emulator's fake provider page, on a portal started with
 * FLAG_SSO and SSO_PROVIDER_ID=google.com. The emulator has no createAuthUri for providers: its
 * own page stands in (tests/integration/sso-create-auth-uri.test.ts covers createAuthUri). That
 * page needs JavaScript, so without it the tests send the answer it would have sent.
 */

const PASSWORD = 'Correct-Horse-42'
const emulatorOrigin = () => process.env.EMULATOR_ORIGIN!

const test = ssoTestOn(everyWayPortal)

test('single sign-on through the provider page signs in with the provider’s email (fr)', async ({
  page,
  javaScriptEnabled,
  baseURL,
}) => {
  const email = uniqueEmail('sso')
  await page.goto('/')
  await expect(page.getByRole('heading', { name: 'Authentification unique activée' })).toBeVisible()
  const start = await startSso(page)
  expect(start.url.searchParams.get('providerId')).toBe('google.com')
  expect(start.ibi).toBe(`${baseURL}/sso/callback?emulator=`)

  if (javaScriptEnabled) {
    await page.getByRole('button', { name: 'Add new account' }).click()
    // The emulator's page labels its inputs with a missing id: found by its own id.
    await page.locator('#email-input').fill(email)
    await page.getByRole('button', { name: 'Sign in with Google.com' }).click()
  } else {
    await page.goto(providerAnswer(start, claimsFor(email)))
  }
  await expect(page.getByRole('heading', { name: 'Votre session est ouverte' })).toBeVisible()
  await expect(page.getByText(email)).toBeVisible()
  expect(new URL(page.url()).pathname).toBe('/')
  expect(page.url()).not.toContain('id_token')
})

for (const [language, l] of Object.entries({
  fr: { button: 'Continuer avec Google', password: 'Mot de passe', or: 'ou', signIn: 'Se connecter' },
  en: { button: 'Continue with Google', password: 'Password', or: 'or', signIn: 'Login' },
})) {
  test.describe(`the single sign-on variant (${language})`, oneModePerLanguage(language), () => {
    test.use({ locale: language === 'fr' ? 'fr-FR' : 'en-US' })

    test('names its provider, before the password form', async ({ page, javaScriptEnabled }) => {
      await page.goto('/')
      const sso = page.getByRole('button', { name: l.button, exact: true })
      await expect(sso).toBeVisible()
      const button = await sso.boundingBox()
      const password = await page.getByLabel(l.password, { exact: true }).boundingBox()
      expect(button!.y, 'the provider comes first on its own variant').toBeLessThan(password!.y)
      if (javaScriptEnabled) {
        expect(await wcagViolations(page)).toEqual([])
      }
    })

    test('shows Google’s mark on its button, as wide and as high as the main one, and “or” between two rules', async ({
      page,
    }) => {
      await page.goto('/')
      const sso = page.getByRole('button', { name: l.button, exact: true })
      // The mark is drawn in the page (no request to Google), in Google's four colours, and hidden from the name.
      const mark = sso.locator('svg')
      await expect(mark).toHaveAttribute('aria-hidden', 'true')
      const fills = await mark.locator('path').evaluateAll((paths) => paths.map((p) => p.getAttribute('fill')?.toUpperCase()))
      expect(fills.sort()).toEqual(['#34A853', '#4285F4', '#EA4335', '#FBBC05'])
      const [box, main] = [await sso.boundingBox(), await page.getByRole('button', { name: l.signIn, exact: true }).boundingBox()]
      expect(box!.width, 'as wide as the main button').toBeCloseTo(main!.width, 0)
      expect(box!.height, 'as high as the main button').toBeCloseTo(main!.height, 0)
      const or = page.getByText(l.or, { exact: true })
      await expect(or).toBeVisible()
      const rules = await or.evaluate((el) =>
        (['::before', '::after'] as const).map((pseudo) => {
          const style = getComputedStyle(el, pseudo)
          return { line: style.borderTopStyle, width: parseFloat(style.width) }
        }),
      )
      for (const rule of rules) {
        expect(rule.line, 'a rule on each side of “or”').toBe('solid')
        expect(rule.width).toBeGreaterThan(40)
      }
    })

    test('keeps a hyphenated word of its heading whole at 320 px', async ({ page }) => {
      await page.setViewportSize({ width: 320, height: 700 })
      await page.goto('/')
      // Each hyphen stands on the line of the letter after it: "Sign-On" never ends a line with "Sign-".
      const split = await page.getByRole('heading', { level: 1 }).evaluate((heading) => {
        const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT)
        const broken: string[] = []
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? ''
          const top = (at: number) => {
            const range = document.createRange()
            range.setStart(node!, at)
            range.setEnd(node!, at + 1)
            return Math.round(range.getBoundingClientRect().top)
          }
          for (let i = text.indexOf('-'); i >= 0 && i + 1 < text.length; i = text.indexOf('-', i + 1)) {
            if (top(i) !== top(i + 1)) broken.push(text.slice(Math.max(0, i - 6), i + 3))
          }
        }
        return broken
      })
      expect(split).toEqual([])
    })
  })
}

for (const [language, l] of Object.entries({
  fr: {
    told: 'Ce compte se connecte avec Facebook et n’a pas de mot de passe. Pour confirmer votre identité, déconnectez-vous, reconnectez-vous avec Facebook, puis revenez ici dans les 5\u00a0minutes.',
    password: 'Mot de passe',
    button: 'Continuer avec Google',
  },
  en: {
    told: "This account signs in with Facebook and has no password. To confirm it's you, log out, sign in again with Facebook, then come back here within 5 minutes.",
    password: 'Password',
    button: 'Continue with Google',
  },
})) {
  test.describe(`"Confirm it's you" for an account of another provider than the portal's (${language})`, oneModePerLanguage(language), () => {
    test.use({ locale: language === 'fr' ? 'fr-FR' : 'en-US' })

    test('says how to confirm, and asks for no password it does not have', async ({ page }) => {
      await page.goto('/')
      const start = await startSso(page, l.button)
      await page.goto(providerAnswer(start, claimsFor(uniqueEmail('sso-confirm')), 'facebook.com'))
      await page.goto('/account/confirm?next=%2Faccount')
      await expect(page.getByText(l.told)).toBeVisible()
      await expect(page.getByRole('alert')).toHaveCount(0)
      await expect(page.getByLabel(l.password, { exact: true })).toHaveCount(0)
      // The portal's provider cannot confirm an account of another one: no button for it.
      await expect(page.getByRole('button', { name: l.button })).toHaveCount(0)
    })
  })
}

test.describe('in English', () => {
  test.use({ locale: 'en-US' })

  test('an account with the same email and another sign-in method is explained', async ({ page, admin }) => {
    const email = uniqueEmail('sso-exists')
    await admin.createUser(email, PASSWORD)
    await page.goto('/')
    const start = await startSso(page, 'Continue with Google')
    // A provider that has not verified the address cannot take over the password account.
    await page.goto(providerAnswer(start, claimsFor(email, false)))
    await expect(page.getByRole('alert')).toHaveText(
      'An account already exists with this email address but another sign-in method.',
    )
    await expect(page.getByRole('heading', { name: 'Single Sign-On enabled' })).toBeVisible()
  })

  test('a disabled account is told so', async ({ page, admin }) => {
    const email = uniqueEmail('sso-disabled')
    const { localId } = await admin.createUser(email, PASSWORD)
    await admin.disableUser(localId)
    await page.goto('/')
    const start = await startSso(page, 'Continue with Google')
    await page.goto(providerAnswer(start, claimsFor(email)))
    await expect(page.getByRole('alert')).toHaveText('This account has been disabled.')
  })

  test('a callback without the state cookie, or with a tampered one, is a cancelled sign-in', async ({
    page,
    context,
  }) => {
    await page.goto('/')
    const start = await startSso(page, 'Continue with Google')
    const answer = providerAnswer(start, claimsFor(uniqueEmail('sso-tamper')))
    const state = (await context.cookies()).find((c) => c.name === 'sso_state')!
    expect(state).toMatchObject({ httpOnly: true, path: '/' })

    // One character of the IV changed: other bytes, whatever the value was.
    const tampered = `${state.value.slice(0, 4)}${state.value[4] === 'A' ? 'B' : 'A'}${state.value.slice(5)}`
    await context.addCookies([{ ...state, value: tampered }])
    await page.goto(answer)
    await expect(page.getByRole('alert')).toHaveText('Single sign-on was cancelled or has expired. Please try again.')

    await context.clearCookies()
    await page.goto(answer)
    await expect(page.getByRole('alert')).toHaveText('Single sign-on was cancelled or has expired. Please try again.')
    await expect(page.getByRole('heading', { name: 'You are signed in' })).toHaveCount(0)
  })

  test('the answer must carry this browser’s eventId', async ({ page }) => {
    await page.goto('/')
    const start = await startSso(page, 'Continue with Google')
    await page.goto(providerAnswer({ ...start, eventId: 'someone-elses' }, claimsFor(uniqueEmail('sso-event'))))
    await expect(page.getByRole('alert')).toHaveText('Single sign-on was cancelled or has expired. Please try again.')
  })

  test('provider errors: refused, failed, or an unusable credential', async ({ page, baseURL }) => {
    const cases = [
      { query: 'error=access_denied', message: 'Single sign-on was cancelled or has expired. Please try again.' },
      { query: 'error=server_error', message: 'Your sign-in provider could not sign you in. Please try again.' },
    ]
    for (const { query, message } of cases) {
      await page.goto('/?redirect=%2Fafter')
      await startSso(page, 'Continue with Google')
      await page.goto(`${baseURL}/sso/callback?${query}`)
      await expect(page.getByRole('alert')).toHaveText(message)
      // The redirect the visitor came with is kept for the next try.
      expect(new URL(page.url()).searchParams.get('redirect')).toBe('/after')
    }
    await page.goto('/')
    const start = await startSso(page, 'Continue with Google')
    await page.goto(providerAnswer(start, { email: 'no-subject@example.com' }))
    await expect(page.getByRole('alert')).toHaveText('Your sign-in provider could not sign you in. Please try again.')
  })

  test('authDomain moves the callback to another allowed host, which hands over to the portal', async ({
    page,
    portal,
  }) => {
    const email = uniqueEmail('sso-domain')
    const otherHost = `127.0.0.1:${portal.port}`
    await page.goto(`/?authDomain=${otherHost}`)
    const start = await startSso(page, 'Continue with Google')
    expect(start.ibi).toBe(`http://${otherHost}/sso/callback?emulator=`)
    // 127.0.0.1 does not get the state cookie set for localhost: the callback relays to the public origin.
    await page.goto(providerAnswer(start, claimsFor(email)))
    await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
    await expect(page.getByText(email)).toBeVisible()
    expect(new URL(page.url()).host).toBe(new URL(portal.url).host)
  })

  test('an authDomain that is invalid or not allowed is ignored and logged', async ({ page, portal }) => {
    for (const [authDomain, event] of [
      ['evil.example', 'auth-domain-refused'],
      ['evil.example/path', 'auth-domain-invalid'],
    ] as const) {
      await page.goto(`/?${new URLSearchParams({ authDomain })}`)
      const start = await startSso(page, 'Continue with Google')
      expect(start.ibi).toBe(`${portal.url}/sso/callback?emulator=`)
      await expect.poll(() => portal.output()).toContain(event)
    }
  })
})

test.describe('over HTTP', () => {
  test('the start needs the CSRF token', { tag: '@once' }, async ({ request }) => {
    const response = await request.post('/sso/start', { form: { csrf: 'forged' }, maxRedirects: 0 })
    expect(response.status()).toBe(403)
  })

  test('the start answers a page that moves on by itself, with the state cookie', { tag: '@once' }, async ({ request }) => {
    const response = await postForm(request, '/sso/start', {}, { formPage: '/' })
    expect(response.status()).toBe(200)
    const refresh = response.headers()['refresh'] ?? ''
    expect(refresh).toMatch(new RegExp(`^0;url=${emulatorOrigin().replace(/[.]/g, '\\.')}/emulator/auth/handler\\?`))
    const cookie = response
      .headersArray()
      .find((h) => h.name.toLowerCase() === 'set-cookie' && h.value.startsWith('sso_state='))
    expect(cookie?.value).toMatch(/HttpOnly/)
    expect(cookie?.value).toMatch(/Max-Age=600/)
  })

  test('with the flag off there is no button and the start refuses', async ({ page, playwright }) => {
    const global = process.env.PORTAL_URL!
    await page.goto(global)
    await expect(page.getByRole('button', { name: 'Continuer avec Google' })).toHaveCount(0)
    const request = await playwright.request.newContext({ baseURL: global })
    const response = await postForm(request, '/sso/start', {}, { formPage: '/' })
    expect(response.status()).toBe(303)
    expect(response.headers()['location']).toBe('/?ssoError=unavailable')
    await request.dispose()
  })
})
