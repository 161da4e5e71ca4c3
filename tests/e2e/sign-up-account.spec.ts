import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { uniqueEmail } from '../../dev/emulator'
import type { Portal } from '../../dev/portal'
import { confirmItsYou, expect, portalWith, signIn, test as base } from './fixtures'

/**
 * After "Create an account" (ADR 066): the sign-up signs nobody in; the new account signs in with
 * its address not yet verified, token sync gets its token as for any sign-in, and /account says
 * first of all that the address is not verified, with the button that sends the email again.
 */

const PASSWORD = 'Brand-New-Secret-77'

interface Recorder {
  calls: Array<{ method: string; subject: string | null }>
  url: string
  close(): void
}

/** A loopback token sync endpoint keeping each call's method and the `sub` of its bearer token. */
async function startRecorder(): Promise<Recorder> {
  const calls: Recorder['calls'] = []
  const server = http.createServer((req, res) => {
    const payload = /^Bearer [^.]*\.([^.]*)\./.exec(req.headers.authorization ?? '')?.[1]
    const subject = payload ? (JSON.parse(Buffer.from(payload, 'base64url').toString()) as { sub?: string }).sub ?? null : null
    calls.push({ method: req.method ?? '', subject })
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    calls,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sync`,
    close() {
      server.closeAllConnections()
      server.close()
    },
  }
}

const test = base.extend<{ sync: { service: Recorder; portal: Portal } }>({
  sync: portalWith(startRecorder, (recorder) => ({ FLAG_SIGN_UP: 'true', TOKEN_SYNC_URL: recorder.url })),
  baseURL: async ({ sync }, use) => use(sync.portal.url),
})
test.describe.configure({ timeout: 60_000 })
test.use({ locale: 'en-US' })

test('a new account signs in unverified: token sync gets its token, /account says so first and sends the email again', async ({
  page,
  admin,
  sync,
}) => {
  const email = uniqueEmail('sign-up-account')
  await page.goto('/sign-up')
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Confirm password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page.getByRole('status')).toHaveText('Check your email to finish creating your account')
  await admin.emailed(email, 'VERIFY_EMAIL')
  const uid = await admin.localIdOf(email)
  expect(uid).not.toBeNull()

  // The sign-up itself signed nobody in: no session, nothing told to token sync.
  expect(sync.service.calls.filter((c) => c.subject === uid)).toEqual([])
  await page.goto('/account')
  await expect(page).toHaveURL(/\/\?redirect=%2Faccount$/)

  await signIn(page, email, PASSWORD, '/?redirect=%2Faccount')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your account')
  expect(sync.service.calls.filter((c) => c.subject === uid)).toEqual([{ method: 'POST', subject: uid }])

  // Right under the heading, before the account's details.
  const notice = page.getByText('Your email address is not verified yet.', { exact: false })
  await expect(notice).toBeVisible()
  const order = await page.evaluate(() => {
    const texts = [...document.querySelectorAll('main h1, main p, main dt')].map((e) => e.textContent ?? '')
    return [texts.findIndex((t) => t.startsWith('Your email address is not verified')), texts.indexOf('Email address')]
  })
  expect(order[0]).toBe(1)
  expect(order[0]).toBeLessThan(order[1]!)

  await page.getByRole('button', { name: 'Send verification email' }).click()
  await confirmItsYou(page, PASSWORD)
  await expect(page.getByRole('status')).toHaveText(
    'A verification link is on its way to your address. Open it to confirm the address.',
  )
  await expect(notice).toBeHidden()
  await expect.poll(async () => (await admin.oobCodes()).filter((c) => c.email === email && c.requestType === 'VERIFY_EMAIL').length).toBe(2)
})
