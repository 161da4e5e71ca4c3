import type { BrowserContext, Page } from '@playwright/test'
import { uniqueEmail, uniquePhone } from '../../dev/emulator'
import { type Admin, askForSignInLink, COMMON_LABELS, expect, expectFieldError, everyWayPortal, wrongCodeFor, testOn } from './fixtures'

/**
 * The second factor at sign-in (ADR 022) against the Firebase Auth emulator, which
 * speaks SMS second factors: it "sends" its codes to `/emulator/v1/projects/{id}/verificationCodes`.
 * Every way of signing in ends on the same step: password, email link and single sign-on.
 * A portal of its own, with email-link sign-in and single sign-on on.
 */

const PASSWORD = 'Correct-Horse-42'
const emulatorOrigin = () => process.env.EMULATOR_ORIGIN!

const test = testOn(everyWayPortal)

/** The phone as the step names it: its last four digits ('the number ending in 0100'). */
const masked = (phone: string) => phone.slice(-4)

/** A password account with these SMS second factors. */
async function mfaAccount(admin: Admin, phones: Array<{ phoneNumber: string; displayName?: string }>) {
  const email = uniqueEmail('mfa')
  const { localId } = await admin.createUser(email, PASSWORD)
  await admin.enrollSms(localId, phones)
  return email
}

/** Whether the browser holds a session (the fixtures' `sessionCookie` requires one). */
async function hasSession(context: BrowserContext) {
  return (await context.cookies()).some((c) => c.name === 'session')
}

const LABELS = {
  fr: {
    ...COMMON_LABELS.fr,
    code: 'Code de vérification',
    resend: 'Renvoyer le code',
    wrong: 'Code incorrect. Vérifiez-le et réessayez.',
    sentTo: (phone: string) => `Nous avons envoyé un code par SMS au numéro se terminant par ${phone}.`,
    sso: 'Continuer avec Google',
    choose: 'Choisissez comment confirmer votre identité.',
    another: 'Changer de méthode',
    factor: (name: string, phone: string) => `${name}\u00a0: SMS au numéro se terminant par ${phone}`,
  },
  en: {
    ...COMMON_LABELS.en,
    code: 'Verification code',
    resend: 'Resend code',
    wrong: 'Wrong code. Please check it and try again.',
    sentTo: (phone: string) => `We sent a code by SMS to the number ending in ${phone}.`,
    sso: 'Continue with Google',
    choose: 'Choose how to confirm it’s you.',
    another: 'Use another method',
    factor: (name: string, phone: string) => `${name}: SMS to the number ending in ${phone}`,
  },
} as const
type Labels = (typeof LABELS)[keyof typeof LABELS]

/** Single sign-on through the emulator's provider page, answered as it would (see sso.spec.ts). */
async function ssoSignIn(page: Page, l: Labels, claims: { sub: string; email: string }, path = '/') {
  await page.goto(path)
  await page.getByRole('button', { name: l.sso }).click()
  await page.waitForURL((url) => url.href.startsWith(`${emulatorOrigin()}/emulator/auth/handler`), {
    waitUntil: 'commit',
  })
  const url = new URL(page.url())
  const [eventId, ibi] = [url.searchParams.get('eventId')!, url.searchParams.get('ibi')!]
  const idToken = encodeURIComponent(JSON.stringify({ ...claims, email_verified: true }))
  const handler = `${emulatorOrigin()}/emulator/auth/handler?providerId=google.com&id_token=${idToken}`
  const callback = `${emulatorOrigin()}/__/auth/callback?authType=signInViaRedirect&link=${encodeURIComponent(handler)}&eventId=${eventId}`
  await page.goto(`${ibi}://google/link?deep_link_id=${encodeURIComponent(callback)}`)
}

async function passwordSignIn(page: Page, l: Labels, email: string, path = '/') {
  await page.goto(path)
  await page.getByLabel(l.email).fill(email)
  await page.getByLabel(l.password).fill(PASSWORD)
  await page.getByRole('button', { name: l.signIn }).click()
}

/**
 * On the code step for `phone`: where the code went is said, the field is what a one-time code
 * needs, there is no session yet; a wrong code is refused with an alert and the step stays; the
 * right one is submitted last (the caller checks where it lands).
 */
/**
 * The code field lines up with 'Verify': as wide as the button, its six digits spaced apart and
 * fitting without scrolling. 'Resend code' is a secondary button: outlined, where 'Verify' is filled.
 */
async function expectCodeFieldShape(page: Page, l: Labels) {
  const field = page.getByLabel(l.code)
  await field.fill('000000')
  const shape = await field.evaluate((input: HTMLInputElement) => ({
    fits: input.scrollWidth <= input.clientWidth,
    width: input.getBoundingClientRect().width,
    formWidth: input.form!.getBoundingClientRect().width,
    letterSpacing: getComputedStyle(input).letterSpacing,
  }))
  await field.fill('')
  expect(shape.fits, 'six digits fit in the field').toBe(true)
  const verify = await page.getByRole('button', { name: l.verify, exact: true }).boundingBox()
  expect(shape.width, 'the field is as wide as “Verify”').toBeCloseTo(verify!.width, 0)
  expect(shape.width, 'the field and the button take the form’s width').toBeCloseTo(shape.formWidth, 0)
  expect(shape.letterSpacing).not.toBe('normal')
  const resend = page.getByRole('button', { name: l.resend })
  if ((await resend.count()) > 0) {
    const background = (name: string | RegExp) =>
      page.getByRole('button', { name }).evaluate((b) => getComputedStyle(b).backgroundColor)
    expect(await background(l.resend), '“Resend code” is outlined').toBe('rgba(0, 0, 0, 0)')
    expect(await background(l.verify), '“Verify” is filled').not.toBe('rgba(0, 0, 0, 0)')
    const [resendBox, verifyBox] = [await resend.boundingBox(), await page.getByRole('button', { name: l.verify, exact: true }).boundingBox()]
    expect(resendBox!.width, '“Resend code” is as wide as “Verify”').toBeCloseTo(verifyBox!.width, 0)
  }
}

async function passCodeStep(page: Page, context: BrowserContext, admin: Admin, l: Labels, phone: string) {
  await expect(page.getByRole('heading', { name: l.step })).toBeVisible()
  expect(new URL(page.url()).pathname).toBe('/second-factor')
  expect(new URL(page.url()).search).toBe('')
  await expect(page.getByText(l.sentTo(masked(phone)))).toBeVisible()
  const field = page.getByLabel(l.code)
  await expect(field).toBeFocused()
  await expect(field).toHaveAttribute('autocomplete', 'one-time-code')
  await expect(field).toHaveAttribute('inputmode', 'numeric')
  await expect(field).toHaveAttribute('maxlength', '6')
  await expect(field).toHaveAttribute('pattern', '[0-9]{6}')
  await expectCodeFieldShape(page, l)
  expect(await hasSession(context)).toBe(false)
  // The pending sign-in is in no page and no address: the emulator's credential starts with this.
  expect(await page.content()).not.toContain('eyJfQXV0aEVtdWxhdG9y')

  const code = await admin.lastSmsCode(phone)
  expect(code, 'the emulator sent a code at once').toMatch(/^\d{6}$/)
  await field.fill(wrongCodeFor(code!))
  await page.getByRole('button', { name: l.verify }).click()
  await expectFieldError(page, l.code, l.wrong)
  await expect(page.getByRole('heading', { name: l.step })).toBeVisible()
  expect(await hasSession(context)).toBe(false)

  await page.getByLabel(l.code).fill(code!)
  await page.getByRole('button', { name: l.verify }).click()
}

test('password, then the SMS code: a wrong code is refused, the right one signs in and honours the redirect (fr)', async ({
  page,
  context,
  admin,
  portal,
}) => {
  const phone = uniquePhone()
  const email = await mfaAccount(admin, [{ phoneNumber: phone, displayName: 'Portable' }])
  // localhost is one of the emulator project's authorizedDomains; nothing listens on port 9.
  await passwordSignIn(page, LABELS.fr, email, '/?redirect=http%3A%2F%2Flocalhost%3A9%2Fafter')
  const followed = page.waitForRequest('http://localhost:9/after')
  await passCodeStep(page, context, admin, LABELS.fr, phone)
  expect((await followed).url()).toBe('http://localhost:9/after')
  expect(await hasSession(context)).toBe(true)
  const code = (await admin.verificationCodes()).find((c) => c.phoneNumber === phone)
  expect(code, 'the code was spent').toBeUndefined()
  // Nothing secret in the log: neither the pending credential nor the emulator's session.
  expect(portal.output()).not.toContain('eyJfQXV0aEVtdWxhdG9y')
  await expect.poll(() => portal.output()).toContain('"secondFactor":"phone"')
})

test.describe('in English', () => {
  test.use({ locale: 'en-US' })

  test('password, then the SMS code: signed in, and the session cookie is accepted', async ({
    page,
    context,
    admin,
  }) => {
    const phone = uniquePhone()
    const email = await mfaAccount(admin, [{ phoneNumber: phone }])
    await passwordSignIn(page, LABELS.en, email)
    await passCodeStep(page, context, admin, LABELS.en, phone)
    await expect(page.getByRole('heading', { name: LABELS.en.signedIn })).toBeVisible()
    await expect(page.getByText(email)).toBeVisible()
    await page.goto('/')
    await expect(page.getByRole('heading', { name: LABELS.en.signedIn })).toBeVisible()
  })
})

test('two factors: the chooser names each, and only the chosen phone gets a code (fr)', async ({
  page,
  context,
  admin,
}) => {
  const [work, home] = [uniquePhone(), uniquePhone()]
  const email = await mfaAccount(admin, [
    { phoneNumber: work, displayName: 'Travail' },
    { phoneNumber: home, displayName: 'Maison' },
  ])
  const l = LABELS.fr
  await passwordSignIn(page, l, email)
  await expect(page.getByRole('heading', { name: l.step })).toBeVisible()
  await expect(page.getByText(l.choose)).toBeVisible()
  await expect(page.getByRole('button', { name: l.factor('Travail', masked(work)) })).toBeVisible()
  const codesFor = async (phone: string) => (await admin.verificationCodes()).filter((c) => c.phoneNumber === phone)
  expect(await codesFor(work)).toEqual([])
  expect(await codesFor(home)).toEqual([])

  // Choose one, change one's mind, choose the other.
  await page.getByRole('button', { name: l.factor('Travail', masked(work)) }).click()
  await expect(page.getByText(l.sentTo(masked(work)))).toBeVisible()
  await page.getByRole('button', { name: l.another }).click()
  await page.getByRole('button', { name: l.factor('Maison', masked(home)) }).click()
  await passCodeStep(page, context, admin, l, home)
  await expect(page.getByRole('heading', { name: l.signedIn })).toBeVisible()
  expect(await codesFor(work)).toHaveLength(1)
})

test('after an email link, the SMS code completes the sign-in and the link’s redirect is honoured (fr)', async ({
  page,
  context,
  admin,
  baseURL,
}) => {
  const phone = uniquePhone()
  const email = await mfaAccount(admin, [{ phoneNumber: phone }])
  const l = LABELS.fr
  await askForSignInLink(page, email, '/?redirect=http%3A%2F%2Flocalhost%3A9%2Fafter')
  await page.goto(await admin.emailedLink(email, 'EMAIL_SIGNIN', baseURL!))
  await page.getByRole('button', { name: l.continue }).click()
  const followed = page.waitForRequest('http://localhost:9/after')
  await passCodeStep(page, context, admin, l, phone)
  expect((await followed).url()).toBe('http://localhost:9/after')
})

test.describe('resending, in English', () => {
  test.use({ locale: 'en-US' })

  test('“Resend code” right after a code went waits out its cooldown and sends nothing', async ({
    page,
    admin,
    javaScriptEnabled,
  }) => {
    const phone = uniquePhone()
    const email = await mfaAccount(admin, [{ phoneNumber: phone }])
    await passwordSignIn(page, LABELS.en, email)
    await expect(page.getByText(LABELS.en.sentTo(masked(phone)))).toBeVisible()
    expect(await admin.lastSmsCode(phone)).toMatch(/^\d{6}$/)
    const resend = page.getByRole('button', { name: 'Resend code' })
    // The wait is in the button's label, from the server's page on; the button looks unavailable meanwhile;
    // with JavaScript it counts down.
    const wait = /^Resend code \(0:(\d\d)\)$/
    await expect(resend).toHaveText(wait)
    await expect(resend).toHaveAttribute('aria-disabled', 'true')
    const secondsLeft = async () => Number(wait.exec(await resend.innerText())![1])
    const first = await secondsLeft()
    expect(first).toBeGreaterThan(0)
    expect(first).toBeLessThanOrEqual(30)
    if (javaScriptEnabled) await expect.poll(secondsLeft, { timeout: 10_000 }).toBeLessThan(first)
    if (javaScriptEnabled) {
      // With JavaScript the button says it is not available yet, and a click does nothing.
      await expect(resend).toHaveAttribute('aria-disabled', 'true')
      await resend.click({ force: true })
      await expect(page.getByRole('alert')).toHaveCount(0)
    } else {
      // Marked unavailable, it still posts without JavaScript (force: Playwright will not click an aria-disabled button).
      await resend.click({ force: true })
      await expect(page.getByRole('alert')).toHaveText('Please wait a few seconds before asking for a new code.')
    }
    await expect(page.getByLabel(LABELS.en.code)).toBeVisible()
    expect((await admin.verificationCodes()).filter((c) => c.phoneNumber === phone)).toHaveLength(1)
  })
})

test.describe('single sign-on, in English', () => {
  test.use({ locale: 'en-US' })

  test('after single sign-on, the SMS code completes the sign-in and the redirect is honoured', async ({
    page,
    context,
    admin,
  }) => {
    const l = LABELS.en
    const claims = { sub: `${Date.now()}${Math.floor(Math.random() * 1e6)}`, email: uniqueEmail('mfa-sso') }
    // The first single sign-on makes the account; then it gets a second factor.
    await ssoSignIn(page, l, claims)
    await expect(page.getByRole('heading', { name: l.signedIn })).toBeVisible()
    const phone = uniquePhone()
    await admin.enrollSms((await admin.localIdOf(claims.email))!, [{ phoneNumber: phone }])
    await context.clearCookies()

    await ssoSignIn(page, l, claims, '/?redirect=http%3A%2F%2Flocalhost%3A9%2Fafter')
    const followed = page.waitForRequest('http://localhost:9/after')
    await passCodeStep(page, context, admin, l, phone)
    expect((await followed).url()).toBe('http://localhost:9/after')
  })
})

test('no answer of the portal is a 401 without a challenge: wrong password, unknown address, wrong code', async ({
  page,
  admin,
  portal,
}) => {
  // RFC 9110 § 15.5.2: a 401 must carry WWW-Authenticate; a text browser asks what to do with one.
  const unchallenged: string[] = []
  const answers: number[] = []
  page.on('response', (response) => {
    if (!response.url().startsWith(portal.url)) return
    answers.push(response.status())
    if (response.status() === 401 && !response.headers()['www-authenticate']) unchallenged.push(response.url())
  })
  const l = LABELS.fr
  const phone = uniquePhone()
  const email = await mfaAccount(admin, [{ phoneNumber: phone }])
  await page.goto('/')
  for (const address of [email, uniqueEmail('nobody')]) {
    await page.getByLabel(l.email).fill(address)
    await page.getByLabel(l.password).fill('Not-the-password-1')
    await page.getByRole('button', { name: l.signIn }).click()
    await expect(page.getByRole('alert')).toHaveText('Adresse électronique ou mot de passe incorrect')
  }
  await passwordSignIn(page, l, email)
  await expect(page.getByRole('heading', { name: l.step })).toBeVisible()
  const code = await admin.lastSmsCode(phone)
  await page.getByLabel(l.code).fill(wrongCodeFor(code!))
  await page.getByRole('button', { name: l.verify }).click()
  await expectFieldError(page, l.code, l.wrong)
  expect(
    answers.some((status) => status >= 400),
    'the failures were answered with an error status',
  ).toBe(true)
  expect(unchallenged).toEqual([])
})
