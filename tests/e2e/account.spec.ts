import { uniqueEmail } from '../../dev/emulator'
import { intoTheNextSecond } from '../support/next-second'
import { type Admin, confirmItsYou, expect, signIn, test } from './fixtures'

/**
 * The signed-in half: the account page, "Confirm it's you", changing the password, and the two
 * logouts, in real browsers against the emulator. Every account is new.
 */

// Each test walks a flow over two or three browsers: several times one page's budget on a busy machine.
test.describe.configure({ timeout: 90_000 })


const PASSWORD = 'Correct-Horse-42'
const NEW_PASSWORD = 'Another-Horse-2026'

/** The VERIFY_EMAIL emails the emulator sent to `email` (its outbox: dev/outbox.ts reads the same list). */
async function verificationEmails(admin: Admin, email: string): Promise<number> {
  return (await admin.oobCodes()).filter((c) => c.email === email && c.requestType === 'VERIFY_EMAIL').length
}


test.describe('in English', () => {
  test.use({ locale: 'en-US' })

  test('account page, then change password through "Confirm it\'s you": this browser stays, another is signed out', async ({
    page,
    admin,
    anotherBrowser,
  }) => {
    const email = uniqueEmail('account-password')
    await admin.createUser(email, PASSWORD)
    const b = await anotherBrowser()
    await signIn(b.page, email, PASSWORD)
    await expect(b.page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()

    // Signed out, /account leads to sign-in, which comes back.
    await page.goto('/account')
    await expect(page).toHaveURL(/\/\?redirect=%2Faccount$/)
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Login' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your account')
    await expect(page.getByText(email, { exact: true })).toBeVisible()
    await expect(page.getByText('Not verified', { exact: true })).toBeVisible()
    await expect(page.getByRole('definition').filter({ hasText: /^Password$/ })).toBeVisible()
    await expect(page.getByRole('definition').filter({ hasText: new RegExp(`${new Date().getUTCFullYear()}.* UTC$`) }).first()).toBeVisible()
    await expect(page.getByRole('button', { name: 'Send verification email' })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Log out of all devices' })).toBeVisible()

    await page.getByRole('link', { name: 'Change password' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText("Confirm it's you")
    expect(new URL(page.url()).search).toBe('?next=%2Faccount%2Fpassword')
    // A password form with its (hidden) username, as Chrome asks: the account's address, for the password manager.
    const username = page.locator('form:has(input[type=password]) input[autocomplete="username"]')
    await expect(username).toHaveValue(email)
    await expect(username).toBeHidden()
    await page.getByLabel('Password', { exact: true }).fill('Not-the-password-1')
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page.getByRole('alert')).toHaveText('Wrong password')
    await expect(page.getByLabel('Password', { exact: true })).toHaveValue('')

    await intoTheNextSecond()
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Change password')
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD)
    await page.getByLabel('Confirm new password', { exact: true }).fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your account')
    await expect(page.getByRole('status')).toHaveText(
      'Your password has been changed. This device stays signed in; every other device was signed out.',
    )

    // This browser stays signed in, the other one is signed out.
    await page.goto('/account')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your account')
    await b.page.goto('/')
    await expect(b.page.getByRole('heading', { level: 1 })).toHaveText('Sign In')

    // The old password fails, the new one works.
    await signIn(b.page, email, PASSWORD)
    await expect(b.page.getByRole('alert')).toHaveText('Wrong email address or password')
    await signIn(b.page, email, NEW_PASSWORD)
    await expect(b.page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
  })

  test('"Log out" in one browser leaves the other signed in, and its copied cookie is refused', async ({
    page,
    admin,
    context,
    anotherBrowser,
  }) => {
    const email = uniqueEmail('logout-one')
    await admin.createUser(email, PASSWORD)
    const b = await anotherBrowser()
    await signIn(b.page, email, PASSWORD)
    await expect(b.page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
    // Two sign-ins of one account in the same second get the same token claims, so the same
    // session cookie: ending one would end both. Real browsers are that far apart.
    await intoTheNextSecond()
    await signIn(page, email, PASSWORD)
    await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
    const copied = (await context.cookies()).find((c) => c.name === 'session')!

    await page.goto('/logout')
    await page.getByRole('button', { name: 'Log out', exact: true }).click()
    await expect(page.getByRole('status')).toHaveText('Your session in this browser has ended.')
    await page.goto('/')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign In')

    await b.page.goto('/')
    await expect(b.page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()

    const thief = await anotherBrowser()
    await thief.context.addCookies([copied])
    await thief.page.goto('/')
    await expect(thief.page.getByRole('heading', { level: 1 })).toHaveText('Sign In')
  })

  test('"Log out of all devices" on the account page ends every browser\'s session', async ({
    page,
    admin,
    anotherBrowser,
  }) => {
    const email = uniqueEmail('logout-all')
    await admin.createUser(email, PASSWORD)
    const b = await anotherBrowser()
    await signIn(b.page, email, PASSWORD)
    await signIn(page, email, PASSWORD)
    await page.getByRole('link', { name: 'Your account' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your account')
    await intoTheNextSecond()

    await page.getByRole('button', { name: 'Log out of all devices' }).click()
    await expect(page.getByRole('status')).toHaveText('Your sessions on every device have ended.')
    for (const p of [page, b.page]) {
      await p.goto('/')
      await expect(p.getByRole('heading', { level: 1 })).toHaveText('Sign In')
    }
  })
})

test.describe('in English, the address and the account', () => {
  test.use({ locale: 'en-US' })

  test('change the email address through an emailed link: the new one signs in, the old one fails; the answer is the same for a taken address', async ({
    page,
    admin,
    baseURL,
  }) => {
    const email = uniqueEmail('change-from')
    const next = uniqueEmail('change-to')
    const taken = uniqueEmail('change-taken')
    await admin.createUser(email, PASSWORD)
    await admin.createUser(taken, PASSWORD)
    await signIn(page, email, PASSWORD)
    await page.getByRole('link', { name: 'Your account' }).click()
    await page.getByRole('link', { name: 'Change email address' }).click()
    await confirmItsYou(page, PASSWORD)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Change email address')
    const sent = 'If this address can be used, a confirmation link is on its way to it. Open it to change your sign-in address.'

    await page.getByLabel('New email address', { exact: true }).fill(taken)
    await page.getByRole('button', { name: 'Send confirmation link' }).click()
    await expect(page.getByRole('status')).toHaveText(sent)
    await page.goto('/account/email')
    await page.getByLabel('New email address', { exact: true }).fill(next)
    await page.getByRole('button', { name: 'Send confirmation link' }).click()
    await expect(page.getByRole('status')).toHaveText(sent)
    // The new address as typed, where else to look, and "Send the link again" after its wait (ADR 083).
    await expect(page.getByText(`Address you typed: ${next}`)).toBeVisible()
    await expect(page.getByText('Nothing after a few minutes? Look in your spam or junk folder.')).toBeVisible()
    await expect(page.getByRole('button', { name: /^Send the link again \(0:\d\d\)$/ })).toHaveAttribute('aria-disabled', 'true')

    let link = ''
    await expect
      .poll(async () => {
        const code = (await admin.oobCodes())
          .filter((c) => c.email === email && c.requestType === 'VERIFY_AND_CHANGE_EMAIL')
          .at(-1)
        link = code ? `${baseURL}/action${new URL(code.oobLink).search}` : ''
        return link
      })
      .not.toBe('')
    await page.goto(link)
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page.getByText(`Your email address has been changed to ${next}.`)).toBeVisible()

    await page.context().clearCookies()
    await signIn(page, email, PASSWORD)
    await expect(page.getByRole('alert')).toHaveText('Wrong email address or password')
    await signIn(page, next, PASSWORD)
    await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
  })

  test('delete the account: the typed address must be the account\'s; then it is gone and signing in fails', async ({
    page,
    admin,
  }) => {
    const email = uniqueEmail('delete')
    await admin.createUser(email, PASSWORD)
    await signIn(page, email, PASSWORD, '/account/delete')
    await confirmItsYou(page, PASSWORD)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Delete account')
    await page.getByLabel(`Type ${email} to confirm`).fill(uniqueEmail('someone-else'))
    await page.getByRole('button', { name: 'Delete my account' }).click()
    await expect(page.getByText("This is not your account's email address.")).toBeVisible()
    expect(await admin.localIdOf(email)).not.toBeNull()

    await page.getByLabel(`Type ${email} to confirm`).fill(email)
    await page.getByRole('button', { name: 'Delete my account' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your account has been deleted')
    expect(await admin.localIdOf(email)).toBeNull()
    expect((await page.context().cookies()).map((c) => c.name)).not.toEqual(expect.arrayContaining(['session']))
    await signIn(page, email, PASSWORD)
    await expect(page.getByRole('alert')).toHaveText('Wrong email address or password')
  })
})

test('en français : la page du compte, la vérification de l’adresse après « Confirmez votre identité »', async ({
  page,
  admin,
}) => {
  const email = uniqueEmail('compte')
  await admin.createUser(email, PASSWORD)
  await signIn(page, email, PASSWORD, '/?redirect=%2Faccount')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Votre compte')
  await expect(page.getByText('Non vérifiée', { exact: true })).toBeVisible()
  // A date in French, e.g. « 26 novembre 2026 à 17:20 UTC ».
  await expect(page.getByRole('definition').filter({ hasText: /^\d{1,2} \p{L}+ \d{4} à \d{2}:\d{2} UTC$/u }).first()).toBeVisible()

  // One press: "Confirm it's you" first, then the email goes without pressing again.
  await page.getByRole('button', { name: 'Vérifier l’adresse' }).click()
  await confirmItsYou(page, PASSWORD)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Votre compte')
  await expect(page.getByRole('status')).toHaveText(
    'Un lien de vérification est en route vers votre adresse. Ouvrez-le pour confirmer l’adresse.',
  )
  await expect(page.getByRole('button', { name: 'Vérifier l’adresse' })).toBeHidden()
  expect(await verificationEmails(admin, email)).toBe(1)
})

test.describe('in English, the verification email', () => {
  test.use({ locale: 'en-US' })

  test('"Send verification email" pressed once sends exactly one email, through "Confirm it\'s you" or right away', async ({
    page,
    admin,
  }) => {
    const email = uniqueEmail('verify-once')
    await admin.createUser(email, PASSWORD)
    await signIn(page, email, PASSWORD)
    await page.goto('/account')
    await page.getByRole('button', { name: 'Send verification email' }).click()
    await confirmItsYou(page, PASSWORD)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your account')
    const sent = 'A verification link is on its way to your address. Open it to confirm the address.'
    await expect(page.getByRole('status')).toHaveText(sent)
    expect(await verificationEmails(admin, email)).toBe(1)
    // The account's address, where else to look, and "Send the email again" after its wait (ADR 083).
    await expect(page.getByText(`Sent to: ${email}`)).toBeVisible()
    await expect(page.getByText('Nothing after a few minutes? Look in your spam or junk folder.')).toBeVisible()
    await expect(page.getByRole('button', { name: /^Send the email again \(0:\d\d\)$/ })).toHaveAttribute('aria-disabled', 'true')

    // Confirmed less than 5 minutes ago: the next press sends at once, one more email.
    await page.goto('/account')
    await page.getByRole('button', { name: 'Send verification email' }).click()
    await expect(page.getByRole('status')).toHaveText(sent)
    expect(await verificationEmails(admin, email)).toBe(2)
  })
})

test('en français : modifier le mot de passe demande d’abord « Confirmez votre identité »', async ({
  page,
  admin,
  javaScriptEnabled,
}) => {
  const email = uniqueEmail('compte-mdp')
  await admin.createUser(email, PASSWORD)
  await signIn(page, email, PASSWORD, '/?redirect=%2Faccount%2Fpassword')
  await confirmItsYou(page, PASSWORD)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Modifier le mot de passe')
  await page.getByLabel('Nouveau mot de passe', { exact: true }).fill(NEW_PASSWORD)
  await page.getByLabel('Confirmer le nouveau mot de passe', { exact: true }).fill('Pas-la-meme-2026')
  await page.getByRole('button', { name: 'Modifier le mot de passe' }).click()
  await expect(
    page.getByText('Veuillez vérifier que le mot de passe et sa confirmation sont identiques.'),
  ).toBeVisible()
  // Kept to be corrected when the page checked it before sending; never sent back by the server.
  await expect(page.getByLabel('Nouveau mot de passe', { exact: true })).toHaveValue(javaScriptEnabled ? NEW_PASSWORD : '')
  await page.getByLabel('Nouveau mot de passe', { exact: true }).fill(NEW_PASSWORD)
  await page.getByLabel('Confirmer le nouveau mot de passe', { exact: true }).fill(NEW_PASSWORD)
  await page.getByRole('button', { name: 'Modifier le mot de passe' }).click()
  await expect(page.getByRole('status')).toHaveText(
    'Votre mot de passe a été modifié. La session reste ouverte sur cet appareil\u202f; tous les autres appareils ont été déconnectés.',
  )
})
