import type { Page } from '@playwright/test'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { startPortal, type Portal } from '../../dev/portal'
import {
  SITE_KEY,
  startRecaptchaScriptStub,
  startRecaptchaService,
  type RecaptchaScriptStub,
  type RecaptchaService,
} from '../support/recaptcha'
import { expect, test } from './fixtures'

/**
 * reCAPTCHA Enterprise as Identity Platform enforces it (ADR 020), in a browser. A
 * loopback identity service enforces it on email and password in front of the emulator, and a
 * stub of Google's enterprise.js is served through RECAPTCHA_SCRIPT_URL
 * (tests/support/recaptcha.ts). English, for the labels 'Login' and 'Send email'.
 */
test.use({ locale: 'en-US' })

const PASSWORD = 'Captcha-Browser-2026'

interface Setup {
  service: RecaptchaService
  stub: RecaptchaScriptStub
  portal: Portal
}

async function setUp(options: { refuseFirstToken?: boolean } = {}, env: Record<string, string> = {}): Promise<Setup> {
  const emulatorOrigin = process.env.EMULATOR_ORIGIN!
  const service = await startRecaptchaService({ emulatorOrigin, state: 'ENFORCE', ...options })
  const stub = await startRecaptchaScriptStub()
  const portal = await startPortal({
    FIREBASE_AUTH_EMULATOR_HOST: service.host,
    FIREBASE_PROJECT_ID: process.env.EMULATOR_PROJECT_ID!,
    RECAPTCHA_SCRIPT_URL: stub.url,
    ...env,
  })
  return { service, stub, portal }
}

async function tearDown(setup: Setup | undefined) {
  await setup?.portal.stop()
  await setup?.service.stop()
  await setup?.stub.stop()
}

function admin() {
  return emulatorAdmin({ origin: process.env.EMULATOR_ORIGIN!, projectId: process.env.EMULATOR_PROJECT_ID! })
}

async function signIn(page: Page, base: string, email: string) {
  await page.goto(`${base}/`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Login' }).click()
}

test.describe('reCAPTCHA enforced on email and password', () => {
  let setup: Setup
  test.beforeAll(async () => {
    setup = await setUp({}, { FLAG_EMAIL_LINK_SIGN_IN: 'true', FLAG_SIGN_UP: 'true' })
  })
  test.afterAll(() => tearDown(setup))

  test('with JavaScript, one click on Login signs in with a signInWithPassword token @js-only', async ({ page }) => {
    const email = uniqueEmail('rc-login')
    await admin().createUser(email, PASSWORD)
    await signIn(page, setup.portal.url, email)
    await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
    const calls = setup.service.seen.filter((s) => s.call === 'signInWithPassword')
    expect(calls.at(-1)).toMatchObject({
      clientType: 'CLIENT_TYPE_WEB',
      recaptchaVersion: 'RECAPTCHA_ENTERPRISE',
      refused: null,
    })
    expect(calls.at(-1)?.token).toMatch(/^token-for-signInWithPassword\./)
    expect(calls.filter((c) => c.refused)).toEqual([])
    expect(setup.stub.requests).toContain(`?render=${SITE_KEY}`)
    // Invisible: no checkbox, no frame of any kind.
    await expect(page.locator('iframe')).toHaveCount(0)
  })

  test('with JavaScript, one click on Send email sends the reset email with a getOobCode token @js-only', async ({
    page,
  }) => {
    const email = uniqueEmail('rc-reset')
    await admin().createUser(email, PASSWORD)
    await page.goto(`${setup.portal.url}/forgot-password`)
    await page.getByLabel('Email').fill(email)
    await page.getByRole('button', { name: 'Send email' }).click()
    await expect(page.getByRole('status')).toHaveText(
      'If this email address is valid, you will receive an email to reset your password.',
    )
    await expect.poll(async () => (await admin().oobCodes()).filter((c) => c.email === email).length).toBe(1)
    const sent = setup.service.seen.filter((s) => s.call === 'sendOobCode').at(-1)
    expect(sent).toMatchObject({
      clientType: 'CLIENT_TYPE_WEB',
      recaptchaVersion: 'RECAPTCHA_ENTERPRISE',
      refused: null,
    })
    expect(sent?.token).toMatch(/^token-for-getOobCode\./)
  })

  test('with JavaScript, one click on Create account: a signUpPassword token for the sign-up, a getOobCode one for the owner’s reset @js-only', async ({
    page,
  }) => {
    const known = uniqueEmail('rc-sign-up-known')
    await admin().createUser(known, PASSWORD)
    for (const email of [uniqueEmail('rc-sign-up-new'), known]) {
      await page.goto(`${setup.portal.url}/sign-up`)
      await page.getByLabel('Email', { exact: true }).fill(email)
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await page.getByLabel('Confirm password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Create account' }).click()
      await expect(page.getByRole('status')).toHaveText('Check your email to finish creating your account')
      await expect.poll(async () => (await admin().oobCodes()).filter((c) => c.email === email).length).toBe(1)
    }
    const signUps = setup.service.seen.filter((s) => s.call === 'signUp').slice(-2)
    expect(signUps.map((s) => [s.token?.replace(/\.\d+$/, ''), s.refused])).toEqual([
      ['token-for-signUpPassword', null],
      ['token-for-signUpPassword', null],
    ])
    const reset = setup.service.seen.filter((s) => s.call === 'sendOobCode').at(-1)
    expect(reset?.token).toMatch(/^token-for-getOobCode\./)
    expect(reset?.refused).toBeNull()
  })

  test('with JavaScript, the sign-in link button sends its email with a getOobCode token @js-only', async ({
    page,
  }) => {
    const email = uniqueEmail('rc-link')
    await admin().createUser(email, PASSWORD)
    await page.goto(`${setup.portal.url}/`)
    await page.getByLabel('Email').fill(email)
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click()
    await expect(page.getByRole('status')).toHaveText(
      'If this email address is valid, you will receive an email with a link to sign in.',
    )
    await expect.poll(async () => (await admin().oobCodes()).filter((c) => c.email === email).length).toBe(1)
    const sent = setup.service.seen.filter((s) => s.call === 'sendOobCode').at(-1)
    expect(sent?.token).toMatch(/^token-for-getOobCode\./)
  })

  test('without JavaScript, the alert names JavaScript, the email stays, no session @no-js-only', async ({
    page,
    context,
  }) => {
    const email = uniqueEmail('rc-nojs')
    await admin().createUser(email, PASSWORD)
    await signIn(page, setup.portal.url, email)
    await expect(page.getByRole('alert')).toContainText('JavaScript')
    await expect(page.getByLabel('Email')).toHaveValue(email)
    await expect(page.getByLabel('Password')).toHaveValue('')
    expect((await context.cookies()).find((c) => c.name === 'session')).toBeUndefined()
    expect(setup.stub.requests).toEqual([])
  })

  test('without JavaScript, a reset request says the page needs JavaScript, not that an email is on its way @no-js-only', async ({
    page,
  }) => {
    const email = uniqueEmail('rc-reset-nojs')
    await admin().createUser(email, PASSWORD)
    await page.goto(`${setup.portal.url}/forgot-password`)
    await page.getByLabel('Email').fill(email)
    await page.getByRole('button', { name: 'Send email' }).click()
    await expect(page.getByRole('alert')).toContainText('this form runs an automatic check that needs JavaScript')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Please enter your email address')
    await expect(page.getByLabel('Email')).toHaveValue(email)
    expect((await admin().oobCodes()).filter((c) => c.email === email)).toEqual([])
  })
})

test.describe('a service that refuses the first token', () => {
  let setup: Setup
  test.beforeAll(async () => {
    setup = await setUp({ refuseFirstToken: true })
  })
  test.afterAll(() => tearDown(setup))

  test('the page gets a fresh token and retries once by itself, then signs in @js-only', async ({ page }) => {
    const email = uniqueEmail('rc-retry')
    await admin().createUser(email, PASSWORD)
    await signIn(page, setup.portal.url, email)
    await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
    const calls = setup.service.seen.filter((s) => s.call === 'signInWithPassword')
    expect(calls.map((c) => c.refused)).toEqual(['INVALID_RECAPTCHA_TOKEN', null])
    expect(calls[0]?.token).toMatch(/^token-for-signInWithPassword\./)
    expect(calls[1]?.token).toMatch(/^token-for-signInWithPassword\./)
    expect(calls[1]?.token).not.toBe(calls[0]?.token)
  })
})

test('with enforcement off (the emulator’s 501) no reCAPTCHA script loads and the CSP names none', async ({
  page,
  baseURL,
}) => {
  const elsewhere: string[] = []
  const scripts: string[] = []
  page.on('request', (request) => {
    if (new URL(request.url()).origin !== new URL(baseURL!).origin) elsewhere.push(request.url())
    else if (request.resourceType() === 'script') scripts.push(request.url())
  })
  for (const path of ['/', '/forgot-password']) {
    const response = await page.goto(path)
    expect(response?.headers()['content-security-policy']).not.toMatch(/recaptcha|google|frame-src/)
    await expect(page.getByRole('button', { name: path === '/' ? 'Login' : 'Send email' })).toBeVisible()
  }
  expect(elsewhere).toEqual([])
  // Nor the portal's own browser half of it (app/lib/recaptcha.client.ts).
  expect(scripts.filter((url) => url.includes('recaptcha'))).toEqual([])
  expect(await page.evaluate(() => 'grecaptcha' in window)).toBe(false)
})
