import type { CDPSession, Page } from '@playwright/test'
import { uniqueEmail } from '../../dev/emulator'
import { wcagViolations } from './axe'
import { COMMON_LABELS, confirmItsYou, expect, logOut, ownPortal, signIn, testOn } from './fixtures'

/**
 * Passkeys (ADR 067) on a portal with FLAG_PASSKEYS, against the Auth emulator, with Chromium's
 * virtual authenticator (DevTools protocol WebAuthn domain): a platform authenticator with resident
 * keys and user verification, as a phone or a laptop has.
 */

const PASSWORD = 'Correct-Horse-42'
const test = testOn(ownPortal(() => ({ FLAG_PASSKEYS: 'true' })))

const LABELS = {
  en: {
    ...COMMON_LABELS.en,
    withPasskey: 'Sign in with a passkey',
    add: 'Add a passkey',
    name: 'Name',
    added: 'The passkey was added.',
    remove: 'Remove',
    removeButton: 'Remove this passkey',
    removed: 'The passkey was removed.',
    notFound: /opens no account here: it was removed from its account, or the account was deleted/,
    device: 'Chrome on Linux',
    needsJs: 'Adding a passkey needs JavaScript.',
    none: 'None',
  },
  fr: {
    ...COMMON_LABELS.fr,
    withPasskey: 'Utiliser une clé d’accès',
    add: 'Ajouter une clé d’accès',
    name: 'Nom',
    added: 'La clé d’accès a été ajoutée.',
    remove: 'Retirer',
    removeButton: 'Retirer cette clé',
    removed: 'La clé d’accès a été retirée.',
    notFound: /n’ouvre aucun compte ici.: elle a été retirée de son compte, ou le compte a été supprimé/,
    device: 'Chrome sur Linux',
    needsJs: 'L’ajout d’une clé d’accès nécessite JavaScript.',
    none: 'Aucune',
  },
}

/** A virtual authenticator in this page's browser, removed after the test. */
async function authenticator(page: Page, options: { consenting?: boolean } = {}) {
  const cdp: CDPSession = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
      // Chromium's option (the visitor declines); newer than Playwright's protocol types.
      ...({ isUserConsenting: options.consenting ?? true } as object),
    },
  })
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
    remove: async () => {
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId })
      await cdp.send('WebAuthn.disable')
      await cdp.detach()
    },
  }
}

/** The button path: the browser's autofill is not offered, so no ceremony waits on the email field. */
const withoutAutofill = (page: Page) =>
  page.addInitScript(() => {
    Object.defineProperty(PublicKeyCredential, 'isConditionalMediationAvailable', { value: async () => false })
  })

/** Signs in with the password and adds a passkey from the account page, under the name it offers. */
async function addPasskey(page: Page, l: (typeof LABELS)[keyof typeof LABELS], email: string) {
  await signIn(page, email, PASSWORD)
  // The autofill's own POST (its challenge) may be the answer signIn waited for: wait for the sign-in's.
  await expect(page.getByRole('heading', { name: l.signedIn })).toBeVisible()
  await page.goto('/account')
  await page.getByRole('link', { name: l.add }).click()
  await confirmItsYou(page, PASSWORD)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.add)
  await expect(page.getByLabel(l.name)).toHaveValue(l.device)
  expect(await wcagViolations(page), 'the add page').toEqual([])
  await page.getByRole('button', { name: l.add }).click()
  await expect(page.getByRole('status')).toContainText(l.added)
  expect(await wcagViolations(page), 'the account page with a passkey').toEqual([])
  await expect(page.locator('section[aria-labelledby="passkeys"]').getByText(l.device, { exact: true })).toBeVisible()
}

for (const [language, l] of Object.entries(LABELS)) {
  test.describe(`passkeys (${language})`, () => {
    test.use({ locale: language === 'fr' ? 'fr-FR' : 'en-US' })

    test('a password sign-in adds a passkey, which then signs in to the same account @js-only', async ({ page, admin }) => {
      const email = uniqueEmail('passkey')
      await admin.createUser(email, PASSWORD)
      const device = await authenticator(page)
      await withoutAutofill(page)
      await addPasskey(page, l, email)
      expect(await device.credentials()).toHaveLength(1)
      await logOut(page)
      await page.goto('/')
      await expect(page.getByLabel(l.email, { exact: true })).toHaveAttribute('autocomplete', 'username webauthn')
      expect(await wcagViolations(page), 'the sign-in page with its passkey button').toEqual([])
      await page.getByRole('button', { name: l.withPasskey }).click()
      await expect(page.getByRole('heading', { name: l.signedIn })).toBeVisible()
      await expect(page.getByText(email)).toBeVisible()
      await device.remove()
    })

    test('the browser’s autofill signs in with the passkey @js-only', async ({ page, admin }) => {
      const email = uniqueEmail('passkey-autofill')
      await admin.createUser(email, PASSWORD)
      const device = await authenticator(page)
      await addPasskey(page, l, email)
      await logOut(page)
      await page.goto('/')
      // The virtual authenticator answers the autofill's pending ceremony at once, as a person picking the passkey.
      await expect(page.getByRole('heading', { name: l.signedIn })).toBeVisible()
      await expect(page.getByText(email)).toBeVisible()
      await device.remove()
    })

    test('a removed passkey no longer signs in, and says why @js-only', async ({ page, admin }) => {
      const email = uniqueEmail('passkey-removed')
      await admin.createUser(email, PASSWORD)
      const device = await authenticator(page)
      await withoutAutofill(page)
      await addPasskey(page, l, email)
      // "Confirm it's you" for adding it still holds (5 minutes, ADR 036).
      await page.getByRole('button', { name: l.remove }).click()
      await page.getByRole('button', { name: l.removeButton }).click()
      await expect(page.getByRole('status')).toContainText(l.removed)
      await logOut(page)
      await page.goto('/')
      await page.getByRole('button', { name: l.withPasskey }).click()
      await expect(page.getByRole('alert')).toHaveText(l.notFound)
      expect(await wcagViolations(page)).toEqual([])
      await device.remove()
    })

    test('a passkey of a deleted account says so @js-only', async ({ page, admin, baseURL }) => {
      const email = uniqueEmail('passkey-deleted')
      const { localId } = await admin.createUser(email, PASSWORD)
      const device = await authenticator(page)
      await withoutAutofill(page)
      await addPasskey(page, l, email)
      await logOut(page)
      await deleteAccount(localId)
      await page.goto('/')
      await page.getByRole('button', { name: l.withPasskey }).click()
      await expect(page.getByRole('alert')).toHaveText(l.notFound)
      expect(baseURL).toBeTruthy()
      await device.remove()
    })

    test('a cancelled ceremony says nothing and leaves the form usable @js-only', async ({ page, admin }) => {
      const email = uniqueEmail('passkey-cancelled')
      await admin.createUser(email, PASSWORD)
      const device = await authenticator(page, { consenting: false })
      await withoutAutofill(page)
      await page.goto('/')
      const button = page.getByRole('button', { name: l.withPasskey })
      await button.click()
      await expect(button).toBeEnabled()
      await expect(page.getByRole('alert')).toHaveCount(0)
      await signIn(page, email, PASSWORD)
      await expect(page.getByRole('heading', { name: l.signedIn })).toBeVisible()
      await device.remove()
    })

    test('without JavaScript: no passkey button, the password signs in, the account lists and removes passkeys @no-js-only', async ({
      page,
      admin,
    }) => {
      const email = uniqueEmail('passkey-nojs')
      const { idToken } = await admin.createUser(email, PASSWORD)
      await enrolDirectly(idToken, 'Phone')
      await page.goto('/')
      await expect(page.getByRole('button', { name: l.withPasskey })).toHaveCount(0)
      await signIn(page, email, PASSWORD)
      await page.goto('/account')
      await expect(page.getByText('Phone', { exact: true })).toBeVisible()
      await expect(page.getByText(l.needsJs)).toBeVisible()
      await page.getByRole('button', { name: l.remove }).click()
      await confirmItsYou(page, PASSWORD)
      await page.getByRole('button', { name: l.removeButton }).click()
      await expect(page.getByRole('status')).toContainText(l.removed)
      await expect(page.getByText('Phone', { exact: true })).toHaveCount(0)
      await expect(page.locator('section[aria-labelledby="passkeys"]')).toContainText(l.none)
    })
  })
}

const emulatorApi = (path: string) => `${process.env.EMULATOR_ORIGIN}/identitytoolkit.googleapis.com/${path}?key=fake-api-key`

/** The account goes, as the project's owner deletes it. */
async function deleteAccount(localId: string) {
  const res = await fetch(`${process.env.EMULATOR_ORIGIN}/identitytoolkit.googleapis.com/v1/projects/${process.env.EMULATOR_PROJECT_ID}/accounts:delete`, {
    method: 'POST',
    headers: { Authorization: 'Bearer owner', 'Content-Type': 'application/json' },
    body: JSON.stringify({ localId }),
  })
  expect(res.ok).toBe(true)
}

/** A passkey enrolled through the service directly (the emulator checks no attestation): for the pages without JavaScript. */
async function enrolDirectly(idToken: string, name: string) {
  const res = await fetch(emulatorApi('v2/accounts/passkeyEnrollment:finalize'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ idToken, name, authenticatorRegistrationResponse: { id: `nojs-${Date.now()}-${Math.random()}` } }),
  })
  expect(res.ok).toBe(true)
}
