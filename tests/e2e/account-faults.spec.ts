import type { Page } from '@playwright/test'
import { uniqueEmail } from '../../dev/emulator'
import type { Portal } from '../../dev/portal'
import { startLoopbackIdentity } from '../support/emulator-relay'
import { expect, portalBehind, test as base } from './fixtures'

/**
 * What the emulator never answers, from a loopback server in front of it: every call is passed
 * on to the emulator, except the refusals a test arms (`CREDENTIAL_TOO_OLD_LOGIN_AGAIN` on the
 * next password change, `ADMIN_ONLY_OPERATION` on deletion), which production gives.
 */

const PASSWORD = 'Correct-Horse-42'
const NEW_PASSWORD = 'Another-Horse-2026'

interface Faults {
  host: string
  /** Answers the next `accounts:update` carrying a password with CREDENTIAL_TOO_OLD_LOGIN_AGAIN. */
  tooOldOnce: boolean
  /** Answers `accounts:delete` with ADMIN_ONLY_OPERATION. */
  deletionForbidden: boolean
  close(): Promise<void>
}

async function faultsBefore(emulatorOrigin: string): Promise<Faults> {
  const faults = { tooOldOnce: false, deletionForbidden: false }
  const refusal = (message: string) => ({ error: { code: 400, message } })
  const loopback = await startLoopbackIdentity(emulatorOrigin, async ({ path, body, answer }) => {
    if (path.endsWith('/v1/accounts:update') && faults.tooOldOnce && 'password' in body) {
      faults.tooOldOnce = false
      return answer(400, refusal('CREDENTIAL_TOO_OLD_LOGIN_AGAIN'))
    }
    if (path.endsWith('/v1/accounts:delete') && faults.deletionForbidden) answer(400, refusal('ADMIN_ONLY_OPERATION'))
  })
  return Object.assign(faults, loopback)
}

const test = base.extend<{ faulty: { identity: Faults; portal: Portal } }>({
  faulty: portalBehind((emulator) => faultsBefore(emulator.origin)),
})

test.use({ locale: 'en-US' })
test.describe.configure({ timeout: 90_000 })

async function signInAndConfirm(page: Page, portal: Portal, email: string, path: string) {
  await page.goto(`${portal.url}${path}`)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Login' }).click()
  await confirm(page)
}

async function confirm(page: Page) {
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("Confirm it's you")
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Continue' }).click()
}

test('"requires recent login" from the service sends the visitor through "Confirm it\'s you", then the change completes', async ({
  page,
  admin,
  faulty,
}) => {
  const email = uniqueEmail('too-old')
  await admin.createUser(email, PASSWORD)
  await signInAndConfirm(page, faulty.portal, email, '/account/password')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Change password')
  faulty.identity.tooOldOnce = true
  await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD)
  await page.getByLabel('Confirm new password', { exact: true }).fill(NEW_PASSWORD)
  await page.getByRole('button', { name: 'Change password' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("Confirm it's you")
  expect(faulty.identity.tooOldOnce, 'the service was asked and refused').toBe(false)
  await confirm(page)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Change password')
  await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD)
  await page.getByLabel('Confirm new password', { exact: true }).fill(NEW_PASSWORD)
  await page.getByRole('button', { name: 'Change password' }).click()
  await expect(page.getByRole('status')).toHaveText(
    'Your password has been changed. This device stays signed in; every other device was signed out.',
  )
})

test('a project that forbids deletion: the visitor is told so and the account stays', async ({ page, admin, faulty }) => {
  const email = uniqueEmail('no-delete')
  await admin.createUser(email, PASSWORD)
  faulty.identity.deletionForbidden = true
  await signInAndConfirm(page, faulty.portal, email, '/account/delete')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Delete account')
  await page.getByLabel(`Type ${email} to confirm`).fill(email)
  await page.getByRole('button', { name: 'Delete my account' }).click()
  await expect(page.getByRole('alert')).toHaveText(
    'Deleting accounts is turned off for this service: contact the people who run it.',
  )
  // Nothing to try again: no field, no button, the way back.
  await expect(page.getByLabel(`Type ${email} to confirm`)).toHaveCount(0)
  await expect(page.getByRole('button', { name: 'Delete my account' })).toHaveCount(0)
  await expect(page.getByRole('link', { name: 'Back to your account' })).toBeVisible()
  expect(await admin.localIdOf(email)).not.toBeNull()
})
