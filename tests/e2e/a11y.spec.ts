import type { Locator, Page } from '@playwright/test'
import { uniqueEmail, uniquePhone } from '../../dev/emulator'
import type { Portal } from '../../dev/portal'
import type { MfaIdentity } from '../support/mfa-identity'
import { totpCode } from '../support/totp'
import { expectNoViolations } from './axe'
import { expect, expectFieldError, openNewPassword, signIn, test, totpPortal, wrongCodeFor } from './fixtures'

const PASSWORD = 'Accessible-Pass-42'
test.describe('every page and state is accessible, light and dark', () => {
  // Each test walks a whole flow and runs axe on every state of it: several times one page's budget.
  test.describe.configure({ timeout: 90_000 })

  test('sign-in: empty, field errors, wrong credentials, signed in, logout', async ({ page, admin }) => {
    await page.goto('/')
    await expectNoViolations(page, 'sign-in with the privacy notice')
    await page.getByRole('button', { name: 'Se connecter' }).click()
    await expect(page.getByText('Veuillez saisir votre adresse électronique.')).toBeVisible()
    await expectNoViolations(page, 'sign-in field errors')
    const email = uniqueEmail('a11y')
    await admin.createUser(email, PASSWORD)
    await signIn(page, email, 'Wrong-password-1')
    await expect(page.getByRole('alert')).toBeVisible()
    await expectNoViolations(page, 'sign-in wrong credentials')
    await signIn(page, email, PASSWORD)
    await expect(page.getByRole('heading', { name: 'Votre session est ouverte' })).toBeVisible()
    await expectNoViolations(page, 'signed in')
    await page.goto('/logout')
    await expectNoViolations(page, 'logout')
  })

  test('account: the page, "Confirm it’s you" and a wrong password, the password, email and delete forms and their errors, the verification sent', async ({
    page,
    admin,
  }) => {
    // Long enough to wrap at 320 px: the whole address is shown, never cut.
    const email = uniqueEmail(`a11y-account-${'long'.repeat(8)}`)
    await admin.createUser(email, PASSWORD)
    await page.setViewportSize({ width: 320, height: 640 })
    await signIn(page, email, PASSWORD)
    await page.getByRole('link', { name: 'Votre compte' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Votre compte')
    await expect(page.getByText(email, { exact: true })).toBeVisible()
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    )
    expect(overflow, 'horizontal scrolling at 320 px').toBeLessThanOrEqual(0)
    // Each action's label on one line at 320 px (ADR 035).
    const lines = await page.locator('.account-page button, .account-page .button-link').evaluateAll((elements) =>
      elements.map((element) => {
        const range = document.createRange()
        range.selectNodeContents(element)
        const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)))
        return `${element.textContent}: ${tops.size}`
      }),
    )
    expect(
      lines.filter((line) => !line.endsWith(': 1')),
      'labels on more than one line',
    ).toEqual([])
    await expectNoViolations(page, 'account')
    await page.getByRole('link', { name: 'Modifier le mot de passe' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Confirmez votre identité')
    await expectNoViolations(page, 'confirm it’s you')
    await page.getByLabel('Mot de passe', { exact: true }).fill('Wrong-password-1')
    await page.getByRole('button', { name: 'Continuer' }).click()
    await expect(page.getByRole('alert')).toBeVisible()
    await expectNoViolations(page, 'confirm it’s you, wrong password')
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Continuer' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Modifier le mot de passe')
    await expectNoViolations(page, 'change password')
    await page.getByRole('button', { name: 'Modifier le mot de passe' }).click()
    await expect(page.getByText('Veuillez confirmer votre nouveau mot de passe.')).toBeVisible()
    await expectNoViolations(page, 'change password, field errors')
    await page.goto('/account/email')
    await expect(page.getByLabel('Nouvelle adresse électronique')).toBeVisible()
    await expectNoViolations(page, 'change email')
    await page.goto('/account/delete')
    await page.getByRole('button', { name: 'Supprimer mon compte' }).click()
    await expect(page.getByText('Ce n’est pas l’adresse électronique de ce compte.')).toBeVisible()
    await expectNoViolations(page, 'delete account, wrong address')
    await page.goto('/account')
    await page.getByRole('button', { name: 'Vérifier l’adresse' }).click()
    await expect(page.getByRole('status')).toBeVisible()
    await expectNoViolations(page, 'account, verification sent')
  })

  test('second factor: the chooser, the code step and a wrong code, in French and English', async ({ page, admin }) => {
    const email = uniqueEmail('a11y-mfa')
    const { localId } = await admin.createUser(email, PASSWORD)
    const [work, other] = [uniquePhone(), uniquePhone()]
    await admin.enrollSms(localId, [{ phoneNumber: work, displayName: 'Travail' }, { phoneNumber: other }])
    await signIn(page, email, PASSWORD)
    await expect(page.getByText('Choisissez comment confirmer votre identité.')).toBeVisible()
    await expectNoViolations(page, 'second-factor chooser')
    await page.getByRole('button', { name: /^Travail/ }).click()
    await expect(page.getByLabel('Code de vérification')).toBeVisible()
    await expectNoViolations(page, 'second-factor code step')
    const code = (await admin.lastSmsCode(work))!
    await page.getByLabel('Code de vérification').fill(wrongCodeFor(code))
    await page.getByRole('button', { name: 'Vérifier' }).click()
    await expectFieldError(page, 'Code de vérification', 'Code incorrect. Vérifiez-le et réessayez.')
    await expectNoViolations(page, 'second-factor wrong code')

    await page.getByRole('button', { name: 'English' }).click()
    await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible()
    await expectNoViolations(page, 'second-factor code step (en)')
    await page.getByRole('button', { name: 'Use another method' }).click()
    await expect(page.getByText('Choose how to confirm it’s you.')).toBeVisible()
    await expectNoViolations(page, 'second-factor chooser (en)')
  })

  test('adding a phone: unverified address, the number and a bad one, the code step and a wrong code, in French and English', async ({
    page,
    admin,
  }) => {
    const email = uniqueEmail('a11y-phone')
    const { localId } = await admin.createUser(email, PASSWORD)
    await page.goto('/?redirect=%2Faccount%2Fsecond-factor%2Fphone')
    await page.getByLabel('Adresse électronique').fill(email)
    await page.getByLabel('Mot de passe').fill(PASSWORD)
    await page.getByRole('button', { name: 'Se connecter' }).click()
    await expect(page.getByRole('button', { name: 'Vérifier l’adresse' })).toBeVisible()
    await expectNoViolations(page, 'phone, unverified address')
    await admin.verifyEmail(localId)
    await page.goto('/account/second-factor/phone')
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Continuer' }).click()
    await expect(page.getByLabel('Numéro de téléphone')).toBeVisible()
    await expectNoViolations(page, 'phone number')
    await page.getByLabel('Numéro de téléphone').fill('06 12')
    await page.getByRole('button', { name: 'Envoyer le code' }).click()
    await expect(page.getByLabel('Numéro de téléphone')).toHaveAttribute('aria-invalid', 'true')
    await expectNoViolations(page, 'phone number, bad number')
    const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`
    await page.getByLabel('Numéro de téléphone').fill(phone)
    await page.getByRole('button', { name: 'Envoyer le code' }).click()
    await expect(page.getByLabel('Code', { exact: true })).toBeVisible()
    await expectNoViolations(page, 'phone code, resend wait')
    const code = (await admin.lastSmsCode(phone))!
    await page.getByLabel('Code', { exact: true }).fill(`${code.slice(0, 5)}${(Number(code[5]) + 1) % 10}`)
    await page.getByRole('button', { name: 'Ajouter', exact: true }).click()
    await expect(page.getByLabel('Code', { exact: true })).toHaveAttribute('aria-invalid', 'true')
    await expectNoViolations(page, 'phone code, wrong code')
    await page.getByRole('button', { name: 'English' }).click()
    await expect(page.getByRole('heading', { name: 'Add a phone number' })).toBeVisible()
    await expectNoViolations(page, 'phone code (en)')
  })

  test('forgot password, new password, invalid link, emailed-link guard', async ({ page }) => {
    await page.goto('/forgot-password')
    await expectNoViolations(page, 'forgot password')
    await page.getByRole('button', { name: 'Envoyer le courriel' }).click()
    await expect(page.getByText('Veuillez saisir votre adresse électronique.')).toBeVisible()
    await expectNoViolations(page, 'forgot password field error')
    await page.getByLabel('Adresse électronique').fill('someone@example.com')
    await page.getByRole('button', { name: 'Envoyer le courriel' }).click()
    await expect(page.getByRole('status')).toBeVisible()
    await expectNoViolations(page, 'email sent')
    await page.goto('/new-password')
    await expectNoViolations(page, 'invalid reset link')
    await page.goto('/action?mode=verifyEmail')
    await expectNoViolations(page, 'emailed-link guard')
  })

  test.describe('error pages', () => {
    test.use({ consoleErrorsExpected: true })
    test('404', async ({ page }) => {
      await page.goto('/nope')
      await expectNoViolations(page, '404')
    })
    for (const locale of ['fr-FR', 'en-US']) {
      test.describe(locale, () => {
        test.use({ locale })
        test('a status of its own (414) and 404', async ({ page }) => {
          expect((await page.goto(`/?q=${'a'.repeat(9000)}`))?.status()).toBe(414)
          await expect(page.getByRole('heading', { level: 1 })).toHaveText(
            locale === 'fr-FR' ? 'Adresse trop longue' : 'Address too long',
          )
          await expectNoViolations(page, `414 (${locale})`)
          await page.goto('/nope')
          await expectNoViolations(page, `404 (${locale})`)
        })
      })
    }
  })

  test.describe('in English', () => {
    test.use({ locale: 'en-US' })
    test('sign-in', async ({ page }) => {
      await page.goto('/')
      await expectNoViolations(page, 'English sign-in')
    })
  })
})

test('the new-password form is accessible, rules included', async ({ page, admin }) => {
  const email = uniqueEmail('a11y-reset')
  await admin.createUser(email, PASSWORD)
  await openNewPassword(page, admin, email)
  await expectNoViolations(page, 'new password')
  await page.getByLabel('Nouveau mot de passe', { exact: true }).fill('short')
  await page.getByRole('button', { name: 'Modifier le mot de passe' }).click()
  await expect(page.getByText('Votre mot de passe doit comporter au moins 12 caractères.')).toBeVisible()
  await expectNoViolations(page, 'new password errors')
})

test('sign in with the keyboard alone; errors take focus and are tied to their fields', async ({
  page,
  admin,
  javaScriptEnabled,
}) => {
  const email = uniqueEmail('keyboard')
  await admin.createUser(email, PASSWORD)
  await page.goto('/')
  // From the top of the page, Tab reaches the email field, then the password, then the button.
  await page.keyboard.press('Tab')
  for (
    let i = 0;
    i < 5 && !(await page.getByLabel('Adresse électronique').evaluate((el) => el === document.activeElement));
    i++
  ) {
    await page.keyboard.press('Tab')
  }
  await expect(page.getByLabel('Adresse électronique')).toBeFocused()
  const outline = await page.getByLabel('Adresse électronique').evaluate((el) => getComputedStyle(el).outlineStyle)
  expect(outline).not.toBe('none')
  await page.keyboard.type(email)
  await page.keyboard.press('Tab')
  await expect(page.getByLabel('Mot de passe')).toBeFocused()
  await page.keyboard.type('Wrong-password-1')
  await page.keyboard.press('Enter')
  const alert = page.getByRole('alert')
  await expect(alert).toHaveText('Adresse électronique ou mot de passe incorrect')
  if (javaScriptEnabled) await expect(alert).toBeFocused()

  await page.getByLabel('Adresse électronique').fill('')
  await page.getByLabel('Adresse électronique').press('Enter')
  const field = page.getByLabel('Adresse électronique')
  await expect(field).toHaveAttribute('aria-invalid', 'true')
  const describedBy = await field.getAttribute('aria-describedby')
  await expect(page.locator(`[id="${describedBy}"]`)).toHaveText('Veuillez saisir votre adresse électronique.')
  if (javaScriptEnabled) await expect(field).toBeFocused()

  await page.getByLabel('Adresse électronique').fill(email)
  await page.getByLabel('Mot de passe').fill(PASSWORD)
  await page.getByLabel('Mot de passe').press('Enter')
  await expect(page.getByRole('heading', { name: 'Votre session est ouverte' })).toBeVisible()
})

/** Presses Tab until `target` has the focus (at most `max` times), as a keyboard user moves on. */
async function tabTo(page: Page, target: Locator, max = 15) {
  for (let i = 0; i < max && !(await target.evaluate((el) => el === document.activeElement)); i++) {
    await page.keyboard.press('Tab')
  }
  await expect(target).toBeFocused()
  expect(await target.evaluate((el) => getComputedStyle(el).outlineStyle), 'visible focus').not.toBe('none')
}

test('complete a password reset with the keyboard alone', async ({ page, admin, baseURL, javaScriptEnabled }) => {
  const email = uniqueEmail('keyboard-reset')
  await admin.createUser(email, PASSWORD)
  await page.goto('/')
  await tabTo(page, page.getByRole('link', { name: 'Mot de passe oublié\u202f?' }))
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { name: 'Veuillez saisir votre adresse électronique' })).toBeVisible()
  await tabTo(page, page.getByRole('textbox', { name: 'Adresse électronique' }))
  await page.keyboard.type(email)
  await page.keyboard.press('Enter')
  await expect(page.getByRole('status')).toBeVisible()

  // The emailed link is opened from the mail program.
  await expect.poll(async () => (await admin.oobCodes()).some((c) => c.email === email)).toBe(true)
  const code = (await admin.oobCodes()).filter((c) => c.email === email).at(-1)!
  await page.goto(`${baseURL}/action${new URL(code.oobLink).search}`)
  const password = page.getByLabel('Nouveau mot de passe', { exact: true })
  const confirmation = page.getByLabel('Confirmer le nouveau mot de passe')
  // With JavaScript, each password field is followed by its show-password toggle.
  const toggle = page.getByRole('button', { name: 'Afficher le mot de passe' }).first()
  const nextField = async () => {
    await page.keyboard.press('Tab')
    if (javaScriptEnabled) {
      await expect(toggle).toBeFocused()
      await page.keyboard.press('Tab')
    }
  }
  await tabTo(page, password)
  await page.keyboard.type('Tundra-Mosaic-2026')
  await nextField()
  await expect(confirmation).toBeFocused()
  await page.keyboard.type('Tundra-Mosaic-2027')
  await page.keyboard.press('Enter')
  await expect(
    page.getByText('Veuillez vérifier que le mot de passe et sa confirmation sont identiques.'),
  ).toBeVisible()
  if (javaScriptEnabled) {
    // Focus is on the field in error; the password (then its toggle) is just before it.
    await expect(confirmation).toBeFocused()
    await page.keyboard.press('Shift+Tab')
    await expect(toggle).toBeFocused()
    await page.keyboard.press('Shift+Tab')
    await expect(password).toBeFocused()
  } else {
    await tabTo(page, password)
  }
  await page.keyboard.type('Tundra-Mosaic-2026')
  await nextField()
  await page.keyboard.type('Tundra-Mosaic-2026')
  await page.keyboard.press('Enter')
  await expect(page.getByText('Votre mot de passe a été modifié avec succès\u202f!')).toBeVisible()
})

// 200 % zoom of a 1280 × 800 window leaves 640 × 400 CSS pixels.
for (const viewport of [
  { name: '320 px wide', size: { width: 320, height: 640 } },
  { name: '200 % zoom', size: { width: 640, height: 400 } },
]) {
  test(`no horizontal scrolling at ${viewport.name}`, async ({ page }) => {
    await page.setViewportSize(viewport.size)
    for (const path of ['/', '/forgot-password', '/new-password', '/logout']) {
      await page.goto(path)
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      )
      expect(overflow, path).toBeLessThanOrEqual(0)
    }
  })
}

test('an alert focused as the page opens shows no focus ring; keyboard focus still shows 3 px', async ({
  page,
  javaScriptEnabled,
}) => {
  // A reset page without a usable link opens on its alert (focused once the page's script runs).
  await page.goto('/new-password')
  const alert = page.getByRole('alert')
  await expect(alert).toHaveText('Ce lien est invalide ou a expiré.')
  if (javaScriptEnabled) await expect(alert).toBeFocused()
  expect(await alert.evaluate((el) => getComputedStyle(el).outlineStyle), 'ring on the alert').toBe('none')
  const link = page.getByRole('link', { name: 'Demander un autre lien' })
  await tabTo(page, link)
  expect(await link.evaluate((el) => getComputedStyle(el).outlineWidth), 'keyboard focus ring').toBe('3px')
})

test.describe('reduced motion', () => {
  test.use({ reducedMotion: 'reduce' })
  test('turns transitions and animations off', async ({ page }) => {
    await page.goto('/')
    const duration = await page
      .getByRole('button', { name: 'Se connecter' })
      .evaluate((el) => getComputedStyle(el).transitionDuration)
    expect(duration).toBe('0s')
  })
})

/** The authenticator app needs the loopback identity service (the emulator has no TOTP): a portal of its own. */
const loopTest = test.extend<{ loop: { identity: MfaIdentity; portal: Portal } }>({
  loop: totpPortal,
  baseURL: async ({ loop }, use) => use(loop.portal.url),
})

loopTest(
  'second factors: the section, adding an authenticator app and a wrong code, the removal page',
  async ({ page, admin }) => {
    loopTest.setTimeout(90_000)
    const email = uniqueEmail('a11y-factors')
    const { localId } = await admin.createUser(email, PASSWORD)
    await fetch(
      `${process.env.EMULATOR_ORIGIN}/identitytoolkit.googleapis.com/v1/projects/${process.env.EMULATOR_PROJECT_ID}/accounts:update`,
      {
        method: 'POST',
        headers: { Authorization: 'Bearer owner', 'Content-Type': 'application/json' },
        body: JSON.stringify({ localId, emailVerified: true }),
      },
    )
    await page.goto('/?redirect=%2Faccount')
    await page.getByLabel('Adresse électronique').fill(email)
    await page.getByLabel('Mot de passe').fill(PASSWORD)
    await page.getByRole('button', { name: 'Se connecter' }).click()
    await expect(page.getByRole('heading', { name: 'Vérification en deux étapes' })).toBeVisible()
    await expectNoViolations(page, 'account, no second factor')
    await page.getByRole('link', { name: 'Ajouter une application d’authentification' }).click()
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Continuer' }).click()
    await expect(
      page.getByRole('img', { name: 'Code QR à scanner avec votre application d’authentification' }),
    ).toBeVisible()
    await expectNoViolations(page, 'authenticator app')
    const secret = ((await page.getByRole('definition').textContent()) ?? '').replace(/\s/g, '')
    await page.getByLabel('Code de l’application').fill(totpCode(secret) === '000000' ? '111111' : '000000')
    await page.getByRole('button', { name: 'Ajouter', exact: true }).click()
    await expect(page.getByText('Code incorrect. Vérifiez-le et réessayez.')).toBeVisible()
    await expectNoViolations(page, 'authenticator app, wrong code')
    await page.getByLabel('Code de l’application').fill(totpCode(secret))
    await page.getByRole('button', { name: 'Ajouter', exact: true }).click()
    await expect(page.getByRole('status')).toBeVisible()
    await expectNoViolations(page, 'account, authenticator app added')
    await page.getByRole('button', { name: 'Retirer' }).click()
    await expect(page.getByRole('button', { name: 'Retirer cette méthode' })).toBeVisible()
    await expectNoViolations(page, 'remove the last second factor')
  },
)
