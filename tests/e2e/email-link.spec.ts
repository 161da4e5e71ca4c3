import { uniqueEmail } from '../../dev/emulator'
import { alertMarkup, csrfFrom, maskServed, postForm } from '../support/http-browser'
import { wcagViolations } from './axe'
import { askForSignInLink, expect, everyWayPortal, testOn, oneModePerLanguage } from './fixtures'

/**
 * Email-link sign-in on a portal started with FLAG_EMAIL_LINK_SIGN_IN. The
 * emulator records the emails it would send; the link is pointed at the portal's /action, which is
 * where a production project's email template sends it.
 */

const test = testOn(everyWayPortal)

test('a sign-in link asked for and opened in the same browser signs in with one click (fr)', async ({
  page,
  admin,
  baseURL,
  portal,
}) => {
  const email = uniqueEmail('link')
  await askForSignInLink(page, email)
  const link = await admin.emailedLink(email, 'EMAIL_SIGNIN', baseURL!)
  const oobCode = new URL(link).searchParams.get('oobCode')!

  await page.goto(link)
  // The code, the mode and the API key left the address bar.
  expect(new URL(page.url()).pathname).toBe('/action')
  for (const name of ['oobCode', 'mode', 'apiKey']) expect(new URL(page.url()).searchParams.has(name)).toBe(false)
  await expect(page.getByRole('heading', { name: 'Connexion par courriel' })).toBeVisible()
  await expect(page.getByText(`Vous allez vous connecter avec l’adresse ${email}.`)).toBeVisible()
  await page.getByRole('button', { name: 'Continuer' }).click()

  await expect(page.getByRole('heading', { name: 'Votre session est ouverte' })).toBeVisible()
  await expect(page.getByText(email)).toBeVisible()
  expect(portal.output()).not.toContain(oobCode)
  await expect.poll(() => portal.output()).toContain('"method":"email-link"')
})

const SENT_STATE = {
  fr: {
    heading: 'Lien de connexion demandé',
    sent: 'Si cette adresse électronique est valide, vous recevrez un courriel contenant un lien de connexion.',
    password: 'Mot de passe',
    signIn: 'Se connecter',
    back: 'Retour à la connexion',
    typed: (email: string) => `Adresse saisie\u00a0: ${email}`,
    spam: 'Rien reçu après quelques minutes\u202f? Regardez dans le dossier des courriers indésirables (spam).',
    resend: /^Renvoyer le lien \(0:\d\d\)$/,
  },
  en: {
    heading: 'Sign-in link requested',
    sent: 'If this email address is valid, you will receive an email with a link to sign in.',
    password: 'Password',
    signIn: 'Login',
    back: 'Back to login page',
    typed: (email: string) => `Address you typed: ${email}`,
    spam: 'Nothing after a few minutes? Look in your spam or junk folder.',
    resend: /^Send the link again \(0:\d\d\)$/,
  },
}

for (const [language, l] of Object.entries(SENT_STATE)) {
  test.describe(`the link-sent state (${language})`, oneModePerLanguage(language), () => {
    test.use({ locale: language === 'fr' ? 'fr-FR' : 'en-US' })

    test('says only that the link is on its way, with no live password form, and a way back that keeps the redirect', async ({
      page,
      javaScriptEnabled,
    }) => {
      const email = uniqueEmail('link-sent')
      await askForSignInLink(page, email, '/?redirect=http%3A%2F%2Flocalhost%3A9%2Fafter')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.heading)
      // The address as typed, where else to look, and "Send the link again" after its wait (ADR 083).
      await expect(page.getByText(l.typed(email))).toBeVisible()
      await expect(page.getByText(l.spam)).toBeVisible()
      await expect(page.getByRole('button', { name: l.resend })).toHaveAttribute('aria-disabled', 'true')
      // The tab says what the page says.
      await expect(page).toHaveTitle(new RegExp(`^${l.heading} · `))
      await expect(page.getByRole('status')).toHaveText(l.sent)
      await expect(page.getByLabel(l.password, { exact: true })).toHaveCount(0)
      await expect(page.getByRole('button', { name: l.signIn })).toHaveCount(0)
      if (javaScriptEnabled) {
        expect(await wcagViolations(page)).toEqual([])
      }
      await page.getByRole('link', { name: l.back }).click()
      await expect(page.getByLabel(l.password, { exact: true })).toBeVisible()
      expect(new URL(page.url()).search).toBe('?redirect=http%3A%2F%2Flocalhost%3A9%2Fafter')
    })
  })
}

test('after Continue, the browser follows the application redirect the link carried', async ({ page, admin, baseURL }) => {
  const email = uniqueEmail('link-app')
  // localhost is one of the emulator project's authorizedDomains; nothing listens on port 9.
  await askForSignInLink(page, email, '/?redirect=http%3A%2F%2Flocalhost%3A9%2Fafter')
  await page.goto(await admin.emailedLink(email, 'EMAIL_SIGNIN', baseURL!))
  // The target is not in this page's address: the CSP form-action must still allow the redirect.
  const followed = page.waitForRequest('http://localhost:9/after')
  await page.getByRole('button', { name: 'Continuer' }).click()
  expect((await followed).url()).toBe('http://localhost:9/after')
})

test.describe('in English', () => {
  test.use({ locale: 'en-US' })

  test('opened on another device, the link asks for the address first', async ({ page, browser, admin, baseURL }) => {
    const email = uniqueEmail('device')
    await askForSignInLink(page, email)
    const link = await admin.emailedLink(email, 'EMAIL_SIGNIN', baseURL!)

    const other = await browser.newContext({ locale: 'en-US', javaScriptEnabled: test.info().project.name === 'js' })
    const phone = await other.newPage()
    await phone.goto(link)
    await expect(
      phone.getByText('For your security, please enter the email address the link was sent to.'),
    ).toBeVisible()
    await phone.getByLabel('Email').fill(uniqueEmail('someone-else'))
    await phone.getByRole('button', { name: 'Continue' }).click()
    await expect(phone.getByRole('alert')).toHaveText('This is not the email address the link was sent to.')

    // A wrong address does not spend the code.
    await phone.getByLabel('Email').fill(email)
    await phone.getByRole('button', { name: 'Continue' }).click()
    await expect(phone.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
    await expect(phone.getByText(email)).toBeVisible()
    await other.close()
  })

  test('a used link is invalid, and opening it (a mail scanner) never spends it', async ({
    page,
    admin,
    baseURL,
    playwright,
  }) => {
    const email = uniqueEmail('used')
    await askForSignInLink(page, email)
    const link = await admin.emailedLink(email, 'EMAIL_SIGNIN', baseURL!)

    const scanner = await playwright.request.newContext()
    expect((await scanner.get(link)).status()).toBe(200)
    await scanner.dispose()

    await page.goto(link)
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()

    const again = await page.goto(link)
    expect(again?.status()).toBe(400)
    await expect(page.getByText('This link is invalid or has expired.')).toBeVisible()
  })

  test('an invalid address is refused before anything is sent', async ({ page }) => {
    await page.goto('/')
    await page.getByLabel('Email').fill('not-an-address')
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click()
    await expect(page.getByText('Please enter a valid email address.')).toBeVisible()
  })
})

test.describe('over HTTP', () => {
  test('known and unknown addresses get byte-identical answers, with the email cookie', { tag: '@once' }, async ({ request, admin }) => {
    const known = uniqueEmail('known')
    await admin.createUser(known, 'Correct-Horse-42')
    const answers = []
    for (const email of [known, uniqueEmail('unknown')]) {
      const post = await postForm(request, '/?index', { email, intent: 'email-link' }, { formPage: '/' })
      expect(post.status()).toBe(303)
      const cookie = post
        .headersArray()
        .find((h) => h.name.toLowerCase() === 'set-cookie' && h.value.startsWith('email_link='))
      expect(cookie?.value).toMatch(/HttpOnly/)
      expect(cookie?.value).toMatch(/Max-Age=3600/)
      const page = await request.get(post.headers()['location']!)
      answers.push({
        location: post.headers()['location'],
        status: page.status(),
        // The address as typed is on the page (ADR 083): each its own, the rest the same.
        html: maskServed(await page.text())
          .replace(/<span class="address">.*?<\/span><\/span>/g, 'ADDRESS')
          .replaceAll(email, 'EMAIL'),
      })
    }
    expect(answers[0]).toEqual(answers[1])
  })

  test('the link keeps the redirect, which the sign-in honours', { tag: '@once' }, async ({ request, admin, baseURL }) => {
    const email = uniqueEmail('redirect')
    const sent = await postForm(
      request,
      '/?index',
      { email, intent: 'email-link', redirect: 'http://localhost:9/after' },
      { formPage: '/' },
    )
    expect(sent.headers()['location']).toBe('/?emailLink=sent&redirect=http%3A%2F%2Flocalhost%3A9%2Fafter')
    const link = await admin.emailedLink(email, 'EMAIL_SIGNIN', baseURL!)
    expect(new URL(new URL(link).searchParams.get('continueUrl')!).searchParams.get('redirect')).toBe(
      'http://localhost:9/after',
    )

    const clean = await request.get(link, { maxRedirects: 0 })
    expect(clean.status()).toBe(302)
    const page = clean.headers()['location']!
    expect(page).not.toMatch(/oobCode|mode=|apiKey/)
    const csrf = await csrfFrom(request, page)
    const done = await request.post(page, { form: { csrf }, maxRedirects: 0 })
    expect(done.status()).toBe(303)
    expect(done.headers()['location']).toBe('http://localhost:9/after')
    expect(
      done.headersArray().some((h) => h.name.toLowerCase() === 'set-cookie' && h.value.startsWith('session=')),
    ).toBe(true)
  })

  test('with the flag off there is no button, and a sign-in link is an invalid link', async ({ page, playwright }) => {
    const global = process.env.PORTAL_URL!
    await page.goto(global)
    await expect(page.getByRole('button', { name: 'Recevoir un lien de connexion' })).toHaveCount(0)
    const request = await playwright.request.newContext({ baseURL: global })
    const response = await request.get('/action?mode=signIn&oobCode=whatever&apiKey=k')
    expect(response.status()).toBe(400)
    expect(alertMarkup(await response.text())).toContain('Ce lien est invalide ou a expiré.')
    await request.dispose()
  })
})
