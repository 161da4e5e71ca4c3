import { createRequire } from 'node:module'
import type { Browser, Page } from '@playwright/test'
import { uniqueEmail, uniquePhone } from '../../dev/emulator'
import type { Portal } from '../../dev/portal'
import type { MfaIdentity } from '../support/mfa-identity'
import { totpCode } from '../support/totp'
import { type Admin, COMMON_LABELS, expect, signIn, test as base, totpPortal, logOut, oneModePerLanguage } from './fixtures'

/**
 * Second factors their owner manages from /account (ADR 041): an authenticator app added against
 * the loopback identity service, which computes RFC 6238 codes for real (the emulator has no TOTP),
 * its code typed from the secret the page shows; a seeded SMS factor removed against the emulator.
 */

const PASSWORD = 'Correct-Horse-42'

const LABELS = {
  en: {
    ...COMMON_LABELS.en,
    section: 'Second factors',
    stepCode: 'Verification code',
    addTotp: 'Add an authenticator app',
    addPhone: 'Add a phone number',
    qr: 'QR code to scan with your authenticator app',
    code: 'Code from the app',
    name: 'Name',
    add: 'Add',
    wrong: 'Wrong code. Please check it and try again.',
    added: 'The authenticator app has been added. Your next sign-in will ask for its code.',
    app: 'Authenticator app',
    remove: 'Remove',
    removeTitle: 'Remove a second factor',
    removeButton: 'Remove this factor',
    twoStepOn: 'Two-step on',
    twoStepOff: 'Two-step off',
    last: 'It is your last second factor: once it is removed, your password alone will protect your account.',
    other: 'Your other second factors stay.',
    removed: 'The second factor has been removed.',
    none: 'None',
    addedOn: /Added on \w+ \d+, \d{4}/,
    needsVerified: 'Verify your email address before adding a second factor.',
    sendVerification: 'Send verification email',
  },
  fr: {
    ...COMMON_LABELS.fr,
    section: 'Vérification en deux étapes',
    stepCode: 'Code de vérification',
    addTotp: 'Ajouter une application d’authentification',
    addPhone: 'Ajouter un numéro de téléphone',
    qr: 'Code QR à scanner avec votre application d’authentification',
    code: 'Code de l’application',
    name: 'Nom',
    add: 'Ajouter',
    wrong: 'Code incorrect. Vérifiez-le et réessayez.',
    added: 'L’application d’authentification a été ajoutée. Son code vous sera demandé à votre prochaine connexion.',
    app: 'Application d’authentification',
    remove: 'Retirer',
    removeTitle: 'Retirer une méthode de vérification',
    removeButton: 'Retirer cette méthode',
    twoStepOn: 'Deux étapes\u00a0: oui',
    twoStepOff: 'Deux étapes\u00a0: non',
    last: 'C’est votre dernière méthode de vérification\u00a0: une fois retirée, votre mot de passe protégera seul votre compte.',
    other: 'Vos autres méthodes de vérification restent en place.',
    removed: 'La méthode de vérification a été retirée.',
    none: 'Aucun',
    addedOn: /Ajoutée le \d+ \S+ \d{4}/,
    needsVerified: 'Vérifiez votre adresse électronique avant d’ajouter une méthode de vérification.',
    sendVerification: 'Vérifier l’adresse',
  },
} as const
type Labels = (typeof LABELS)[keyof typeof LABELS]

/** A verified account (a real project enrols only verified addresses). */
async function verifiedAccount(admin: Admin, tag: string) {
  const email = uniqueEmail(tag)
  const { localId } = await admin.createUser(email, PASSWORD)
  const res = await fetch(
    `${process.env.EMULATOR_ORIGIN}/identitytoolkit.googleapis.com/v1/projects/${process.env.EMULATOR_PROJECT_ID}/accounts:update`,
    {
      method: 'POST',
      headers: { Authorization: 'Bearer owner', 'Content-Type': 'application/json' },
      body: JSON.stringify({ localId, emailVerified: true }),
    },
  )
  expect(res.ok).toBe(true)
  return { email, localId }
}

/** Signs in on the way to `path` (the account page by default). */
async function signInTo(page: Page, email: string, path = '/account') {
  await signIn(page, email, PASSWORD, `/?${new URLSearchParams({ redirect: path })}`)
}


/** The account page's second factors, one list item each. */
const factorsOf = (page: Page, l: Labels) => page.getByRole('list', { name: l.section }).getByRole('listitem')

/** The secret as the page shows it, in groups of four. */
const secretOf = async (page: Page) => (await page.getByRole('definition').textContent())?.trim() ?? ''
/** The code the app shows now, computed from that secret. */
const appCode = (secret: string) => totpCode(secret.replace(/\s/g, ''))

/** "Confirm it's you" with the password; an account with an authenticator app then types its code. */
async function confirm(page: Page, l: Labels, secret?: string) {
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.confirm)
  await page.getByLabel(l.password, { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: l.continue }).click()
  if (!secret) return
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.step)
  await page.getByLabel(l.stepCode).fill(appCode(secret))
  await page.getByRole('button', { name: l.verify }).click()
}

/** Decodes the QR code's SVG markup with jsQR, in a page of its own (with JavaScript, whatever the project). */
async function decodeQr(browser: Browser, svg: string): Promise<string | null> {
  const context = await browser.newContext({ javaScriptEnabled: true })
  try {
    const page = await context.newPage()
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve('jsqr') })
    return await page.evaluate(async (markup) => {
      const image = new Image()
      image.src = `data:image/svg+xml;base64,${btoa(markup)}`
      await image.decode()
      const canvas = document.createElement('canvas')
      canvas.width = canvas.height = 400
      const context2d = canvas.getContext('2d')!
      context2d.drawImage(image, 0, 0, 400, 400)
      const { data, width, height } = context2d.getImageData(0, 0, 400, 400)
      const jsQR = (
        window as unknown as { jsQR: (d: Uint8ClampedArray, w: number, h: number) => { data: string } | null }
      ).jsQR
      return jsQR(data, width, height)?.data ?? null
    }, svg)
  } finally {
    await context.close()
  }
}

const loopTest = base.extend<{ loop: { identity: MfaIdentity; portal: Portal } }>({
  loop: totpPortal,
  baseURL: async ({ loop }, use) => use(loop.portal.url),
})

loopTest.describe('an authenticator app, against the loopback TOTP service', () => {
  const test = loopTest
  test.describe.configure({ timeout: 120_000 })

  for (const [lang, l] of Object.entries(LABELS)) {
    test.describe(`in ${lang}`, oneModePerLanguage(lang), () => {
      test.use({ locale: lang === 'fr' ? 'fr-FR' : 'en-US' })

      test('added with a code computed from the secret shown, asked at the next sign-in, then removed', async ({
        page,
        admin,
        loop,
      }) => {
        const { email } = await verifiedAccount(admin, 'add-totp')
        await signInTo(page, email)
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
        await expect(page.getByRole('heading', { name: l.section })).toBeVisible()
        await expect(page.getByText(l.none, { exact: true })).toBeVisible()
        await expect(page.getByRole('link', { name: l.addPhone })).toHaveAttribute(
          'href',
          '/account/second-factor/phone',
        )

        await page.getByRole('link', { name: l.addTotp }).click()
        await confirm(page, l)
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.addTotp)
        await expect(page.getByRole('img', { name: l.qr })).toBeVisible()
        const secret = await secretOf(page)
        expect(secret).toMatch(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/)
        const code = page.getByLabel(l.code)
        await expect(code).toHaveAttribute('autocomplete', 'one-time-code')
        await expect(code).toHaveAttribute('inputmode', 'numeric')
        // The enrolment session never reaches the page.
        const callsBefore = loop.identity.calls.length
        expect(await page.content()).not.toContain('totp-session-')

        // A wrong code: the same page, the same secret.
        const right = appCode(secret)
        await code.fill(right === '000000' ? '111111' : '000000')
        await page.getByLabel(l.name).fill('Work phone')
        await page.getByRole('button', { name: l.add, exact: true }).click()
        await expect(page.getByText(l.wrong)).toBeVisible()
        await expect(page.getByLabel(l.code)).toHaveAttribute('aria-invalid', 'true')
        expect(await secretOf(page)).toBe(secret)
        await expect(page.getByLabel(l.name)).toHaveValue('Work phone')
        // A refresh shows it again too.
        await page.reload()
        expect(await secretOf(page)).toBe(secret)

        await page.getByLabel(l.code).fill(appCode(secret))
        await page.getByLabel(l.name).fill('Work phone')
        await page.getByRole('button', { name: l.add, exact: true }).click()
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
        await expect(page.getByRole('status')).toHaveText(l.added)
        const item = factorsOf(page, l).filter({ hasText: 'Work phone' })
        await expect(item).toContainText(l.app)
        await expect(item).toContainText(l.addedOn)
        expect(
          loop.identity.calls.slice(callsBefore).some((c) => c.path === '/v2/accounts/mfaEnrollment:finalize'),
        ).toBe(true)

        // The next sign-in asks for the app's code.
        await logOut(page)
        await signInTo(page, email)
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.step)
        await page.getByLabel(l.stepCode).fill(appCode(secret))
        await page.getByRole('button', { name: l.verify }).click()
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)

        // Removed: the last factor, said before; this browser stays signed in.
        await factorsOf(page, l).filter({ hasText: 'Work phone' }).getByRole('button', { name: l.remove }).click()
        await confirm(page, l, secret)
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.removeTitle)
        await expect(page.getByText('Work phone')).toBeVisible()
        await expect(page.getByText(l.last)).toBeVisible()
        await page.getByRole('button', { name: l.removeButton }).click()
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
        await expect(page.getByRole('status')).toHaveText(l.removed)
        await expect(page.getByText(l.none, { exact: true })).toBeVisible()

        // The next sign-in asks for no code.
        await logOut(page)
        await signInTo(page, email)
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
      })
    })
  }

  test('en français : le code QR se lit (jsQR) et porte la même clé que le texte ; un mauvais code garde la même clé', async ({
    page,
    admin,
    browser,
  }) => {
    const l = LABELS.fr
    const { email } = await verifiedAccount(admin, 'qr-totp')
    await signInTo(page, email, '/account/second-factor/totp')
    await confirm(page, l)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.addTotp)
    const secret = await secretOf(page)
    const svg = await page.getByRole('img', { name: l.qr }).innerHTML()
    const uri = await decodeQr(browser, svg)
    expect(uri).toMatch(/^otpauth:\/\/totp\//)
    const parsed = new URL(uri!)
    expect(parsed.searchParams.get('secret')).toBe(secret.replace(/\s/g, ''))
    expect(decodeURIComponent(parsed.pathname)).toContain(email)
    expect(parsed.searchParams.get('issuer')).toBeTruthy()
    expect(parsed.searchParams.get('digits')).toBe('6')

    const right = appCode(secret)
    await page.getByLabel(l.code).fill(right === '000000' ? '111111' : '000000')
    await page.getByRole('button', { name: l.add, exact: true }).click()
    await expect(page.getByText(l.wrong)).toBeVisible()
    expect(await secretOf(page)).toBe(secret)
    await page.getByLabel(l.code).fill(appCode(secret))
    await page.getByRole('button', { name: l.add, exact: true }).click()
    await expect(page.getByRole('status')).toHaveText(l.added)
    await expect(factorsOf(page, l).filter({ hasText: l.app })).toContainText(/Ajoutée le \d+ \S+ \d{4}/)
  })
})

// On the run's shared portal.
const emulatorTest = base

emulatorTest.describe('against the emulator', () => {
  const test = emulatorTest
  test.describe.configure({ timeout: 120_000 })

  for (const lang of ['en', 'fr'] as const) {
    test.describe(lang, oneModePerLanguage(lang), () => {
      test.use({ locale: lang === 'en' ? 'en-US' : 'fr-FR' })
      test(`seeded SMS factors are removed one by one, the last one said so; sign-in then asks for no code (${lang})`, async ({
        page,
        admin,
      }) => {
        const l = LABELS[lang]
        const email = uniqueEmail('remove-sms')
        const { localId } = await admin.createUser(email, PASSWORD)
        // Two numbers of their own (a number that ended in 9 once made the second the same as the first).
        const [phone, other] = [uniquePhone(), uniquePhone()]
        await admin.enrollSms(localId, [{ phoneNumber: phone, displayName: 'Desk phone' }, { phoneNumber: other }])

        await signInTo(page, email)
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.step)
        // Two factors: the chooser first.
        await page.getByRole('button', { name: /Desk phone/ }).click()
        await page.getByLabel(l.stepCode).fill((await admin.lastSmsCode(phone))!)
        await page.getByRole('button', { name: l.verify }).click()
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
        const items = factorsOf(page, l)
        await expect(items).toHaveCount(2)
        await expect(page.getByText(l.twoStepOn, { exact: true })).toHaveClass(/\bbadge-on\b/)
        // No display name: the masked number names it.
        await expect(items.nth(1)).toContainText(`+*******${other.slice(-4)}`)

        await items.filter({ hasText: 'Desk phone' }).getByRole('button', { name: l.remove }).click()
        // "Confirm it's you": the password, then an SMS code of the account's.
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.confirm)
        const sent = (await admin.verificationCodes()).filter((c) => c.phoneNumber === phone).length
        await page.getByLabel(l.password, { exact: true }).fill(PASSWORD)
        await page.getByRole('button', { name: l.continue }).click()
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.step)
        await page.getByRole('button', { name: /Desk phone/ }).click()
        await page.getByLabel(l.stepCode).fill((await admin.lastSmsCode(phone, sent))!)
        await page.getByRole('button', { name: l.verify }).click()

        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.removeTitle)
        await expect(page.getByText('Desk phone')).toBeVisible()
        await expect(page.getByText(l.other)).toBeVisible()
        await expect(page.getByText(l.last)).toHaveCount(0)
        await expect(page.getByRole('button', { name: l.removeButton })).toHaveClass(/\bbutton-danger\b/)
        await page.getByRole('button', { name: l.removeButton }).click()
        await expect(page.getByRole('status')).toHaveText(l.removed)
        await expect(factorsOf(page, l)).toHaveCount(1)

        // The last one, still within the confirmation's 5 minutes: the page says what follows.
        await page.getByRole('button', { name: l.remove }).click()
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.removeTitle)
        // The warning in a callout of its own, before the danger button.
        await expect(page.locator('.callout-warning')).toHaveText(l.last)
        await page.getByRole('button', { name: l.removeButton }).click()
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
        await expect(page.getByText(l.none, { exact: true })).toBeVisible()
        await expect(page.getByText(l.twoStepOff, { exact: true })).toHaveClass(/\bbadge-off\b/)

        await logOut(page)
        await signInTo(page, email)
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
      })
    })
  }

  test('an unverified address: no way to add a factor, the verification email offered (fr)', async ({
    page,
    admin,
  }) => {
    const l = LABELS.fr
    const email = uniqueEmail('unverified-factors')
    await admin.createUser(email, PASSWORD)
    await signInTo(page, email)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
    await expect(page.getByText(l.needsVerified)).toBeVisible()
    await expect(page.getByRole('button', { name: l.sendVerification })).toBeVisible()
    await expect(page.getByRole('link', { name: l.addTotp })).toHaveCount(0)
    await expect(page.getByRole('link', { name: l.addPhone })).toHaveCount(0)
    // The emulator has no authenticator apps: their page says so first (ADR 072).
    await page.goto('/account/second-factor/totp')
    await expect(page.getByRole('alert')).toHaveText('Ce service ne propose pas d’application d’authentification comme méthode de vérification.')
  })
})
