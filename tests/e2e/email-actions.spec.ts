import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { EMULATOR_API_KEY, uniqueEmail } from '../../dev/emulator'
import { alertMarkup, postForm } from '../support/http-browser'
import type { Portal } from '../../dev/portal'
import { expect, portalBehind, test as base } from './fixtures'

/**
 * The emailed-link modes other than reset and sign-in, with codes the emulator generates:
 * VERIFY_EMAIL and VERIFY_AND_CHANGE_EMAIL by sendOobCode with an ID token, RECOVER_EMAIL by an
 * email change (accounts:update). The emulator cannot make a REVERT_SECOND_FACTOR_ADDITION code
 * (it has no second-factor emails), so that mode runs against a small loopback identity service.
 */

const PASSWORD = 'Correct-Horse-42'

/** A call to the emulator's public API, as a client app would make it. */
async function identity(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(
    `${process.env.EMULATOR_ORIGIN}/identitytoolkit.googleapis.com/v1/${path}?key=${EMULATOR_API_KEY}`,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    },
  )
  const json = (await res.json()) as Record<string, unknown>
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`)
  return json
}

/** The loopback identity service: checks and applies REVERT_SECOND_FACTOR_ADDITION codes. */
interface FakeIdentity {
  host: string
  calls: Array<{ path: string; body: Record<string, unknown> }>
  close(): Promise<void>
}

async function fakeIdentity(): Promise<FakeIdentity> {
  const calls: FakeIdentity['calls'] = []
  const spent = new Set<string>()
  const server = http.createServer((req, res) => {
    let text = ''
    req.on('data', (chunk: Buffer) => (text += chunk.toString()))
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname.replace('/identitytoolkit.googleapis.com', '')
      const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>
      calls.push({ path, body })
      const code = typeof body.oobCode === 'string' ? body.oobCode : ''
      const live = code.startsWith('revert-') && !spent.has(code)
      const answer = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(json))
      }
      if (path === '/v1/projects') return answer(200, { authorizedDomains: ['localhost'] })
      if (path === '/v1/accounts:resetPassword' && live && !body.newPassword) {
        return answer(200, {
          requestType: 'REVERT_SECOND_FACTOR_ADDITION',
          email: 'mfa@example.com',
          mfaInfo: { mfaEnrollmentId: 'enrollment-1', displayName: 'Work phone', phoneInfo: '+*******1234' },
        })
      }
      if (path === '/v1/accounts:update' && live) {
        spent.add(code)
        return answer(200, { localId: 'mfa-user', email: 'mfa@example.com' })
      }
      return answer(400, { error: { code: 400, message: 'INVALID_OOB_CODE' } })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

const test = base.extend<{ fake: { identity: FakeIdentity; portal: Portal } }>({
  fake: portalBehind(fakeIdentity, { FIREBASE_PROJECT_ID: 'demo-fake' }),
})

test('an email address is verified from the emailed link (fr)', async ({ page, admin, baseURL, playwright }) => {
  const email = uniqueEmail('verify')
  const { idToken } = await admin.createUser(email, PASSWORD)
  await identity('accounts:sendOobCode', {
    requestType: 'VERIFY_EMAIL',
    idToken,
    continueUrl: 'http://localhost:9/app',
  })
  const link = await admin.emailedLink(email, 'VERIFY_EMAIL', baseURL!)

  // A mail scanner opening the link spends nothing.
  const scanner = await playwright.request.newContext()
  expect((await scanner.get(link)).status()).toBe(200)
  await scanner.dispose()

  await page.goto(link)
  for (const name of ['oobCode', 'mode', 'apiKey']) expect(new URL(page.url()).searchParams.has(name)).toBe(false)
  await expect(page.getByRole('heading', { name: 'Vérifiez votre adresse électronique' })).toBeVisible()
  // The title is the heading, not "Email link".
  await expect(page).toHaveTitle(/^Vérifiez votre adresse électronique · /)
  await expect(page.getByText(`Confirmez que ${email} est bien votre adresse électronique.`)).toBeVisible()
  const users = await identity('accounts:lookup', { idToken })
  expect((users.users as Array<{ emailVerified: boolean }>)[0]?.emailVerified).toBe(false)

  const refused: string[] = []
  page.on('response', (response) => void (response.status() >= 400 && refused.push(`${response.status()} ${response.url()}`)))
  await page.getByRole('button', { name: 'Continuer' }).click()
  await expect(page.getByText('Votre adresse électronique a été vérifiée.')).toBeVisible()
  // The spent link's page is not asked for again (its 400 was a console error).
  expect(refused).toEqual([])
  // The continueUrl passed the redirect policy (localhost is an authorized domain).
  await expect(page.getByRole('link', { name: 'Poursuivre vers le site' })).toHaveAttribute(
    'href',
    'http://localhost:9/app',
  )
  const after = await identity('accounts:lookup', { idToken })
  expect((after.users as Array<{ emailVerified: boolean }>)[0]?.emailVerified).toBe(true)

  const again = await page.goto(link)
  expect(again?.status()).toBe(400)
  await expect(page.getByText('Ce lien est invalide ou a expiré.')).toBeVisible()
})

test.describe('in English', () => {
  test.use({ locale: 'en-US' })

  test('a changed email address is restored, with the advice to reset the password', async ({
    page,
    admin,
    baseURL,
    request,
  }) => {
    const original = uniqueEmail('recover-old')
    const { idToken } = await admin.createUser(original, PASSWORD)
    await identity('accounts:update', { idToken, email: uniqueEmail('recover-new'), returnSecureToken: true })
    const link = await admin.emailedLink(original, 'RECOVER_EMAIL', baseURL!)

    await page.goto(link)
    await expect(page.getByRole('heading', { name: 'Restore your email address' })).toBeVisible()
    await expect(page.getByText(`Your sign-in email address will be changed back to ${original}.`)).toBeVisible()
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page.getByText(`Your sign-in email address is ${original} again.`)).toBeVisible()
    await expect(
      page.getByText('If you did not ask for the change, reset your password now to secure your account.'),
    ).toBeVisible()
    await expect(page.getByRole('link', { name: 'Reset my password' })).toHaveAttribute(
      'href',
      `/forgot-password?${new URLSearchParams({ email: original })}`,
    )
    expect((await postForm(request, '/?index', { email: original, password: PASSWORD })).status()).toBe(303)

    const again = await page.goto(link)
    expect(again?.status()).toBe(400)
    await expect(page.getByText('This link is invalid or has expired.')).toBeVisible()
  })

  test('a new email address is confirmed, and then signs in', async ({ page, admin, baseURL, request }) => {
    const original = uniqueEmail('change-old')
    const next = uniqueEmail('change-new')
    const { idToken } = await admin.createUser(original, PASSWORD)
    await identity('accounts:sendOobCode', {
      requestType: 'VERIFY_AND_CHANGE_EMAIL',
      idToken,
      newEmail: next,
      continueUrl: 'https://evil.example/',
    })
    const link = await admin.emailedLink(original, 'VERIFY_AND_CHANGE_EMAIL', baseURL!)

    await page.goto(link)
    await expect(page.getByRole('heading', { name: 'Confirm your new email address' })).toBeVisible()
    await expect(page.getByText(`Your sign-in email address will change from ${original} to ${next}.`)).toBeVisible()
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page.getByText(`Your email address has been changed to ${next}.`)).toBeVisible()
    // A continueUrl the redirect policy refuses is never offered as a link.
    await expect(page.getByRole('link', { name: 'Go on to the site' })).toHaveCount(0)
    expect((await postForm(request, '/?index', { email: next, password: PASSWORD })).status()).toBe(303)

    const again = await page.goto(link)
    expect(again?.status()).toBe(400)
    await expect(page.getByText('This link is invalid or has expired.')).toBeVisible()
  })

  test('a code opened under another mode is an invalid link', async ({ page, admin, baseURL }) => {
    const email = uniqueEmail('mismatch')
    const { idToken } = await admin.createUser(email, PASSWORD)
    await identity('accounts:sendOobCode', { requestType: 'VERIFY_EMAIL', idToken })
    const link = new URL(await admin.emailedLink(email, 'VERIFY_EMAIL', baseURL!))
    link.searchParams.set('mode', 'recoverEmail')
    const response = await page.goto(link.href)
    expect(response?.status()).toBe(400)
    await expect(page.getByText('This link is invalid or has expired.')).toBeVisible()
  })

  test('revertSecondFactorAddition against a loopback identity service: checked on GET, spent on POST', async ({
    page,
    fake,
  }) => {
    const code = `revert-${Date.now()}-${Math.random().toString(36).slice(2)}`
    const link = `${fake.portal.url}/action?mode=revertSecondFactorAddition&oobCode=${code}&apiKey=fake-key&lang=en`
    await page.goto(link)
    await expect(page.getByRole('heading', { name: 'Remove the second factor' })).toBeVisible()
    await expect(
      // The factor being removed is named, as the check-code answer's mfaInfo gives it.
      page.getByText(
        'The second factor “Work phone: SMS to the number ending in 1234” recently added to the account mfa@example.com will be removed.',
      ),
    ).toBeVisible()
    const mine = () => fake.identity.calls.filter((c) => c.body.oobCode === code)
    expect(mine().map((c) => c.path)).toEqual(['/v1/accounts:resetPassword'])

    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page.getByText('The second factor has been removed from your account.')).toBeVisible()
    await expect(page.getByText('For your security, reset your password now.')).toBeVisible()
    await expect(page.getByRole('link', { name: 'Reset my password' })).toHaveAttribute(
      'href',
      '/forgot-password?email=mfa%40example.com',
    )
    const update = mine().find((c) => c.path === '/v1/accounts:update')
    expect(update?.body).toEqual({ oobCode: code, returnSecureToken: false })

    const again = await page.goto(link)
    expect(again?.status()).toBe(400)
    await expect(page.getByText('This link is invalid or has expired.')).toBeVisible()
  })
})

test.describe('over HTTP', () => {
  for (const mode of ['verifyEmail', 'recoverEmail', 'verifyAndChangeEmail', 'revertSecondFactorAddition']) {
    test(`${mode} with an unknown code is an invalid link (400)`, { tag: '@once' }, async ({ request }) => {
      const first = await request.get(`/action?mode=${mode}&oobCode=not-a-code&apiKey=key&continueUrl=x&lang=en`, {
        maxRedirects: 0,
      })
      expect(first.status()).toBe(302)
      // The clean URL keeps the other parameters, never mode, apiKey or the code.
      expect(first.headers()['location']).toBe('/action?continueUrl=x&lang=en')
      expect(first.headers()['set-cookie']).toMatch(/^action_code=.*HttpOnly/m)
      const page = await request.get(first.headers()['location']!)
      expect(page.status()).toBe(400)
      expect(alertMarkup(await page.text())).toContain('Ce lien est invalide ou a expiré.')
    })
  }

  test('the confirm POST needs the CSRF token', { tag: '@once' }, async ({ request }) => {
    const response = await request.post('/action', { form: { csrf: 'forged' }, maxRedirects: 0 })
    expect(response.status()).toBe(403)
  })
})
