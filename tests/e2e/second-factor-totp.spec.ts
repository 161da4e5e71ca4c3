import type { Page } from '@playwright/test'
import { uniqueEmail } from '../../dev/emulator'
import { csrfFrom, postForm } from '../support/http-browser'
import {
  TOTP_CODE,
  TOTP_EXPIRED_CODE,
  TOTP_INVALID_SESSION_CODE,
  startMfaIdentity,
  type MfaIdentity,
} from '../support/mfa-identity'
import type { Portal } from '../../dev/portal'
import { startRecaptchaScriptStub } from '../support/recaptcha'
import { expect, expectFieldError, portalBehind, test as base } from './fixtures'

/**
 * Authenticator-app (TOTP) second factors, which the emulator does not speak: a small identity
 * service on loopback (tests/support/mfa-identity.ts) answers the second-factor calls and hands
 * everything else to the emulator. Also the service's errors, an SMS start that demands
 * reCAPTCHA, and the code limit under concurrent attempts.
 */

const PASSWORD = 'Correct-Horse-42'
const CODE_LIMIT = 3

const test = base.extend<{ totp: { identity: MfaIdentity; portal: Portal } }>({
  totp: portalBehind((emulator) => startMfaIdentity(emulator.origin), {
    RATE_LIMIT_MFA_PER_PENDING: String(CODE_LIMIT),
  }),
  baseURL: async ({ totp }, use) => use(totp.portal.url),
})

async function signIn(
  page: Page,
  email: string,
  labels: { email: string; password: string; submit: string },
  path = '/',
) {
  await page.goto(path)
  await page.getByLabel(labels.email).fill(email)
  await page.getByLabel(labels.password).fill(PASSWORD)
  await page.getByRole('button', { name: labels.submit }).click()
}
const FR = { email: 'Adresse électronique', password: 'Mot de passe', submit: 'Se connecter' }
const EN = { email: 'Email', password: 'Password', submit: 'Login' }

test('an authenticator app: the code step, a wrong code refused, the right one signs in (fr)', async ({
  page,
  context,
  admin,
  totp,
}) => {
  const email = uniqueEmail('totp')
  await admin.createUser(email, PASSWORD)
  await signIn(page, email, FR)
  await expect(page.getByRole('heading', { name: 'Vérification en deux étapes' })).toBeVisible()
  await expect(
    page.getByText('Saisissez le code à 6 chiffres affiché dans votre application d’authentification (Authy).'),
  ).toBeVisible()
  await expect(page.getByLabel('Code de vérification')).toBeFocused()
  // No SMS for an app: nothing to resend, and no call was made before the code.
  await expect(page.getByRole('button', { name: 'Renvoyer le code' })).toHaveCount(0)
  expect((await context.cookies()).some((c) => c.name === 'session')).toBe(false)

  await page.getByLabel('Code de vérification').fill('000000')
  await page.getByRole('button', { name: 'Vérifier' }).click()
  await expectFieldError(page, 'Code de vérification', 'Code incorrect. Vérifiez-le et réessayez.')
  await page.getByLabel('Code de vérification').fill(TOTP_CODE)
  await page.getByRole('button', { name: 'Vérifier' }).click()
  await expect(page.getByRole('heading', { name: 'Votre session est ouverte' })).toBeVisible()
  await expect(page.getByText(email)).toBeVisible()

  const finalize = totp.identity.calls.filter((c) => c.path === '/v2/accounts/mfaSignIn:finalize').at(-1)
  expect(finalize?.body).toMatchObject({
    mfaEnrollmentId: 'totp-enrollment',
    totpVerificationInfo: { verificationCode: TOTP_CODE },
  })
  await expect.poll(() => totp.portal.output()).toContain('"secondFactor":"totp"')
  expect(totp.portal.output()).not.toContain(String(finalize?.body.mfaPendingCredential))
})

test('a code that is not six digits is refused without a call (fr)', async ({ page, admin, totp }) => {
  const email = uniqueEmail('totp-format')
  await admin.createUser(email, PASSWORD)
  await signIn(page, email, FR)
  const before = totp.identity.calls.length
  await page.getByLabel('Code de vérification').fill('12a4')
  await page.getByRole('button', { name: 'Vérifier' }).click()
  await expect(page.getByRole('alert')).toHaveText('Veuillez saisir le code à 6 chiffres.')
  expect(totp.identity.calls.length).toBe(before)
})

test.describe('in English', () => {
  test.use({ locale: 'en-US' })

  const cases = [
    {
      name: 'SESSION_EXPIRED',
      code: TOTP_EXPIRED_CODE,
      message: 'Your verification has expired. Please sign in again.',
    },
    {
      name: 'INVALID_MFA_PENDING_CREDENTIAL',
      code: TOTP_INVALID_SESSION_CODE,
      message: 'This sign-in can no longer be completed. Please sign in again.',
    },
  ]
  for (const { name, code, message } of cases) {
    test(`${name} sends the visitor back to sign in with its message, the redirect kept`, async ({ page, admin }) => {
      const email = uniqueEmail('totp-end')
      await admin.createUser(email, PASSWORD)
      await signIn(page, email, EN, '/?redirect=%2Fafter')
      await page.getByLabel('Verification code').fill(code)
      await page.getByRole('button', { name: 'Verify' }).click()
      await expect(page.getByRole('alert')).toHaveText(message)
      await expect(page.getByRole('heading', { name: 'Sign In' })).toBeVisible()
      expect(new URL(page.url()).searchParams.get('redirect')).toBe('/after')
      // Signing in again starts from the address already given, never the password.
      await expect(page.getByLabel('Email', { exact: true })).toHaveValue(email)
      await expect(page.getByLabel('Password', { exact: true })).toHaveValue('')
      // The pending sign-in is gone: the step sends back to sign in.
      await page.goto('/second-factor')
      await expect(page.getByRole('alert')).toHaveText('Your verification has expired. Please sign in again.')
    })
  }

  test('“Back to login page” goes back with the address already given, the redirect kept', async ({ page, admin }) => {
    const email = uniqueEmail('totp-back')
    await admin.createUser(email, PASSWORD)
    await signIn(page, email, EN, '/?redirect=%2Fafter')
    await page.getByRole('link', { name: 'Back to login page' }).click()
    await expect(page.getByRole('heading', { name: 'Sign In' })).toBeVisible()
    await expect(page.getByLabel('Email', { exact: true })).toHaveValue(email)
    await expect(page.getByLabel('Password', { exact: true })).toHaveValue('')
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/after')
  })

  test('a wrong code is said in English, and the step stays', async ({ page, admin }) => {
    const email = uniqueEmail('totp-wrong')
    await admin.createUser(email, PASSWORD)
    await signIn(page, email, EN)
    await page.getByLabel('Verification code').fill('999999')
    await page.getByRole('button', { name: 'Verify' }).click()
    await expectFieldError(page, 'Verification code', 'Wrong code. Please check it and try again.')
    await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible()
    await expect(page.getByLabel('Verification code')).toHaveValue('')
  })

  test('an SMS start that demands reCAPTCHA: without JavaScript the step says it needs it', async ({
    page,
    admin,
    totp,
    javaScriptEnabled,
  }) => {
    const email = uniqueEmail('captcha')
    await admin.createUser(email, PASSWORD)
    await signIn(page, email, EN)
    await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible()
    await expect(page.getByText('The code goes by SMS to the number ending in 4242.')).toBeVisible()
    const needsJs =
      'Sending the code by SMS needs a security check that requires JavaScript. Please turn JavaScript on, or use another method.'
    if (javaScriptEnabled) {
      await expect(page.getByText(needsJs)).toBeHidden()
      await expect(page.getByRole('button', { name: 'Send code' })).toBeVisible()
    } else {
      // Playwright turns scripts off after the parser, which still reads <noscript> as text: a
      // browser without JavaScript shows it. The markup is what such a browser receives.
      expect(await page.content()).toContain(`<noscript><p class="alert alert-error">${needsJs}</p></noscript>`)
    }
    // No code field until a code was sent.
    await expect(page.getByLabel('Verification code')).toHaveCount(0)
    const start = totp.identity.calls.filter((c) => c.path === '/v2/accounts/mfaSignIn:start').at(-1)
    expect(start?.body.phoneSignInInfo).toEqual({})
  })

  test('an SMS start that demands reCAPTCHA: with JavaScript, “Send code” gets an mfaSmsSignIn token and the code goes @js-only', async ({
    page,
    admin,
    totp,
  }) => {
    // Google's script, as the stub answers it (tests/support/recaptcha.ts): its tokens name their action.
    const stub = await startRecaptchaScriptStub()
    try {
      await page.route(/\/recaptcha\/enterprise\.js/, async (route) =>
        route.fulfill({ response: await page.request.get(stub.url + new URL(route.request().url()).search) }),
      )
      const email = uniqueEmail('captcha')
      await admin.createUser(email, PASSWORD)
      await signIn(page, email, EN)
      await page.getByRole('button', { name: 'Send code' }).click()
      await expect(page.getByLabel('Verification code')).toBeVisible()
      const start = totp.identity.calls.filter((c) => c.path === '/v2/accounts/mfaSignIn:start').at(-1)
      expect(start?.body.phoneSignInInfo).toMatchObject({ captchaResponse: expect.stringMatching(/^token-for-mfaSmsSignIn\./) })
    } finally {
      await stub.stop()
    }
  })
})

test.describe('over HTTP', () => {
  test('20 concurrent wrong codes for one pending sign-in reach the service no more often than the limit', { tag: '@once' }, async ({
    request,
    admin,
    totp,
  }) => {
    const email = uniqueEmail('totp-limit')
    await admin.createUser(email, PASSWORD)
    const first = await postForm(request, '/?index', { email, password: PASSWORD })
    expect(first.status()).toBe(303)
    expect(first.headers()['location']).toBe('/second-factor')
    const csrf = await csrfFrom(request, '/second-factor')
    const mine = () =>
      totp.identity.calls.filter((c) => c.path === '/v2/accounts/mfaSignIn:finalize' && c.body.mfaEnrollmentId)
    const before = mine().length

    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        request.post('/second-factor', { form: { csrf, code: '000000' }, maxRedirects: 0 }),
      ),
    )
    const statuses = answers.map((a) => a.status()).sort()
    expect(mine().length - before).toBeLessThanOrEqual(CODE_LIMIT)
    expect(statuses.filter((s) => s === 400)).toHaveLength(CODE_LIMIT)
    expect(statuses.filter((s) => s === 429)).toHaveLength(20 - CODE_LIMIT)
    expect(answers.find((a) => a.status() === 429)?.headers()['retry-after']).toMatch(/^\d+$/)

    // The limit holds for the right code too, and nothing more reached the service.
    const right = await request.post('/second-factor', { form: { csrf, code: TOTP_CODE }, maxRedirects: 0 })
    expect(right.status()).toBe(429)
    expect(mine().length - before).toBe(CODE_LIMIT)
  })

  test('the step without a pending sign-in sends back to sign in', { tag: '@once' }, async ({ request }) => {
    const response = await request.get('/second-factor', { maxRedirects: 0 })
    expect(response.status()).toBe(302)
    expect(response.headers()['location']).toBe('/?mfaError=expired')
  })

  test('a pending sign-in cookie planted in another browser is worth nothing', { tag: '@once' }, async ({
    request,
    admin,
    playwright,
    baseURL,
  }) => {
    const email = uniqueEmail('totp-plant')
    await admin.createUser(email, PASSWORD)
    const first = await postForm(request, '/?index', { email, password: PASSWORD })
    const pending = first
      .headersArray()
      .find((h) => h.name.toLowerCase() === 'set-cookie' && h.value.startsWith('mfa_pending='))
    expect(pending?.value).toMatch(/HttpOnly/)
    // About ten minutes from the first factor, never more.
    const maxAge = Number(/Max-Age=(\d+)/.exec(pending?.value ?? '')?.[1])
    expect(maxAge).toBeGreaterThan(0)
    expect(maxAge).toBeLessThanOrEqual(600)
    // The same cookies work in the browser that signed in…
    const own = (await request.storageState()).cookies.map((c) => `${c.name}=${c.value}`).join('; ')
    expect((await request.get('/second-factor', { headers: { Cookie: own }, maxRedirects: 0 })).status()).toBe(200)
    // …and not in another, with its own CSRF token.
    const other = await playwright.request.newContext({ baseURL })
    await other.get('/')
    const otherCsrf = (await other.storageState()).cookies.find((c) => c.name === 'csrf')!
    const planted = `csrf=${otherCsrf.value}; ${pending!.value.split(';')[0]!}`
    const page = await other.get('/second-factor', { headers: { Cookie: planted }, maxRedirects: 0 })
    expect(page.status()).toBe(302)
    expect(page.headers()['location']).toBe('/?mfaError=expired')
    await other.dispose()
  })
})
