import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Page } from '@playwright/test'
import { uniqueEmail } from '../../dev/emulator'
import type { Portal } from '../../dev/portal'
import { expect, portalWith, test as base } from './fixtures'
import { intoTheNextSecond } from '../support/next-second'

/**
 * Token sync (ADR 006) hears of every way a session ends: logout, account deletion, and a session
 * found ended elsewhere (a password change or "Log out of all devices" in another browser), once.
 * A portal of its own whose TOKEN_SYNC_URL is a recorder of the methods it receives.
 */

const PASSWORD = 'Correct-Horse-42'
const NEW_PASSWORD = 'Another-Horse-2026'

interface Recorder {
  methods: string[]
  url: string
}

/** A loopback stand-in for the token sync endpoint, which keeps the method of every call. */
async function startRecorder(): Promise<Recorder & { close(): void }> {
  const methods: string[] = []
  const server = http.createServer((req, res) => {
    methods.push(req.method ?? '')
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    methods,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sync`,
    close() {
      server.closeAllConnections()
      server.close()
    },
  }
}

const test = base.extend<{ sync: { service: Recorder & { close(): void }; portal: Portal }; recorder: Recorder }>({
  sync: portalWith(startRecorder, (recorder) => ({ TOKEN_SYNC_URL: recorder.url })),
  recorder: async ({ sync }, use) => use(sync.service),
  baseURL: async ({ sync }, use) => use(sync.portal.url),
})

// Each test walks a flow over two browsers and "Confirm it's you": several page budgets on a busy machine.
test.describe.configure({ timeout: 90_000 })
test.use({ locale: 'en-US' })

async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.goto('/')
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Login' }).click()
  await expect(page.getByRole('heading', { name: 'You are signed in' })).toBeVisible()
}

async function confirmTo(page: Page, path: string, heading: string) {
  await page.goto(path)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("Confirm it's you")
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Continue' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading)
}

const deletes = (recorder: Recorder) => recorder.methods.filter((m) => m === 'DELETE').length

test('deleting the account sends token sync its DELETE', async ({ page, admin, recorder }) => {
  const email = uniqueEmail('sync-delete')
  await admin.createUser(email, PASSWORD)
  await signIn(page, email)
  await confirmTo(page, '/account/delete', 'Delete account')
  const before = deletes(recorder)
  await page.getByLabel(`Type ${email} to confirm`).fill(email)
  await page.getByRole('button', { name: 'Delete my account' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your account has been deleted')
  expect(deletes(recorder)).toBe(before + 1)
})

test('a password changed in browser A: browser B finds its session ended, token sync gets one DELETE, B is signed out', async ({
  page,
  admin,
  recorder,
  anotherBrowser,
}) => {
  const email = uniqueEmail('sync-elsewhere')
  await admin.createUser(email, PASSWORD)
  const b = await anotherBrowser()
  await signIn(b.page, email)
  await signIn(page, email)
  // Revocation is recorded to the second (ADR 005): B's session is older than it.
  await intoTheNextSecond()
  await confirmTo(page, '/account/password', 'Change password')
  await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD)
  await page.getByLabel('Confirm new password', { exact: true }).fill(NEW_PASSWORD)
  await page.getByRole('button', { name: 'Change password' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your account')
  const before = deletes(recorder)

  await b.page.goto('/')
  await expect(b.page.getByRole('heading', { level: 1 })).toHaveText('Sign In')
  expect(deletes(recorder), 'told once').toBe(before + 1)
  expect((await b.context.cookies()).map((c) => c.name), 'the cookie is cleared').not.toContain('session')
  // Told once: the next visits find no session to speak of.
  await b.page.goto('/')
  await b.page.goto('/logout')
  expect(deletes(recorder)).toBe(before + 1)
})
