import { readFileSync } from 'node:fs'
import type { APIRequestContext, BrowserContext, Page } from '@playwright/test'
import { startAttacker, type Attacker } from '../support/attacker'
import { EMULATOR_API_KEY, uniqueEmail } from '../../dev/emulator'
import { postForm } from '../support/http-browser'
import { type Admin, expect, test } from './fixtures'

/**
 * Cross-site request forgery against every action, in a real browser. A page on another
 * loopback origin (tests/support/attacker.ts) auto-submits a form to the portal; the portal must
 * answer 403 with its translated error page, and nothing may change: no session, no email sent,
 * no password changed, no session ended, no cookie set.
 *
 * The attacker's page needs JavaScript: the test runs in the `js` project alone (@once), on its
 * French context, which is also the victim's.
 *
 * Three positions per action:
 * - cross-site (http://127.0.0.1:X → http://localhost:Y) without the token: the plain attack;
 * - cross-site after the victim visited the portal, the form carrying the victim's real token
 *   (as if it had leaked): Lax cookies stay home and Sec-Fetch-Site says cross-site;
 * - same-site but cross-origin (http://localhost:X), real token in the form: the browser sends
 *   the victim's csrf cookie, so the double-submit check passes and only the Origin check is left.
 */

const FORBIDDEN = (
  JSON.parse(readFileSync(new URL('../../locales/fr/common.json', import.meta.url), 'utf8')) as {
    errorPage: { 403: { title: string } }
  }
).errorPage[403].title
const SIGNED_IN_TITLE = 'Votre session est ouverte'
const PASSWORD = 'Correct-Horse-42'
const ATTACKER_PASSWORD = 'Attacker-Chosen-Pass-99'

type Variant = 'cross-site' | 'cross-site, victim token' | 'same-site, victim token'

function env(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set: the e2e global set-up did not run`)
  return value
}

/** Emulator REST calls the admin fixture does not offer. */
function identity() {
  const api = `${env('EMULATOR_ORIGIN')}/identitytoolkit.googleapis.com/v1`
  const post = (path: string, body: unknown) =>
    fetch(`${api}/${path}?key=${EMULATOR_API_KEY}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
  return {
    async canSignIn(email: string, password: string): Promise<boolean> {
      return (await post('accounts:signInWithPassword', { email, password, returnSecureToken: true })).ok
    },
    async sendReset(email: string): Promise<void> {
      const res = await post('accounts:sendOobCode', { requestType: 'PASSWORD_RESET', email })
      if (!res.ok) throw new Error(`sendOobCode answered ${res.status}: ${await res.text()}`)
    },
    /** Checks a reset code without spending it. */
    async codeIsValid(oobCode: string): Promise<boolean> {
      return (await post('accounts:resetPassword', { oobCode })).ok
    },
  }
}

async function cookieNamed(context: BrowserContext, url: string, name: string) {
  return (await context.cookies(url)).find((c) => c.name === name)
}

interface Arranged {
  fields: Record<string, string>
  /** Hard assertions that the attack changed nothing. */
  unchanged(): Promise<void>
}

interface Scenario {
  name: string
  path: string
  arrange(args: {
    context: BrowserContext
    page: Page
    request: APIRequestContext
    admin: Admin
    baseURL: string
  }): Promise<Arranged>
}

const scenarios: Scenario[] = [
  {
    name: 'sign-in',
    path: '/?index',
    async arrange({ context, admin, baseURL }) {
      const email = uniqueEmail('csrf-signin')
      await admin.createUser(email, PASSWORD)
      return {
        fields: { email, password: PASSWORD },
        async unchanged() {
          expect(await cookieNamed(context, baseURL, 'session'), 'a session cookie was set').toBeUndefined()
        },
      }
    },
  },
  {
    name: 'forgot-password',
    path: '/forgot-password',
    async arrange({ admin }) {
      const email = uniqueEmail('csrf-forgot')
      await admin.createUser(email, PASSWORD)
      return {
        fields: { email },
        async unchanged() {
          // The portal sends the email off the response path: give it time to show up.
          for (let i = 0; i < 10; i++) {
            await new Promise((r) => setTimeout(r, 150))
            const codes = (await admin.oobCodes()).filter((c) => c.email === email)
            expect(codes, `an email was sent to ${email}`).toEqual([])
          }
        },
      }
    },
  },
  {
    name: 'new-password',
    path: '/new-password',
    async arrange({ context, page, admin, baseURL }) {
      const email = uniqueEmail('csrf-newpass')
      await admin.createUser(email, PASSWORD)
      const api = identity()
      await api.sendReset(email)
      const oobCode = (await admin.emailed(email, 'PASSWORD_RESET')).oobCode
      // The victim opened the emailed link: the code now sits in the reset_code cookie.
      await page.goto(`${baseURL}/action?mode=resetPassword&oobCode=${encodeURIComponent(oobCode)}&apiKey=${EMULATOR_API_KEY}`)
      await expect(page.getByText(email)).toBeVisible()
      expect(await cookieNamed(context, baseURL, 'reset_code'), 'the reset link set no cookie').toBeDefined()
      return {
        fields: { password: ATTACKER_PASSWORD, confirmation: ATTACKER_PASSWORD },
        async unchanged() {
          expect(await api.canSignIn(email, ATTACKER_PASSWORD), 'the attacker set the password').toBe(false)
          expect(await api.canSignIn(email, PASSWORD), 'the old password stopped working').toBe(true)
          expect(await api.codeIsValid(oobCode), 'the reset code was spent').toBe(true)
        },
      }
    },
  },
  {
    name: 'logout',
    path: '/logout',
    async arrange({ context, request, admin, baseURL }) {
      const email = uniqueEmail('csrf-logout')
      await admin.createUser(email, PASSWORD)
      // The victim is signed in (the request context shares the browser context's cookies).
      const signIn = await postForm(request, '/?index', { email, password: PASSWORD })
      expect(signIn.status(), 'the victim could not sign in').toBe(303)
      const session = await cookieNamed(context, baseURL, 'session')
      expect(session, 'no session cookie after signing in').toBeDefined()
      return {
        fields: {},
        async unchanged() {
          expect((await cookieNamed(context, baseURL, 'session'))?.value, 'the session cookie was dropped').toBe(
            session?.value,
          )
          // Not revoked either: the portal still knows the victim.
          const html = await (await request.get('/')).text()
          expect(html, 'the session no longer signs in').toContain(SIGNED_IN_TITLE)
        },
      }
    },
  },
  {
    name: 'account password',
    path: '/account/password',
    async arrange({ request, admin }) {
      const email = uniqueEmail('csrf-account-password')
      await admin.createUser(email, PASSWORD)
      const api = identity()
      // The victim is signed in and has just confirmed it is them: only the CSRF check stands in the way.
      expect((await postForm(request, '/?index', { email, password: PASSWORD })).status()).toBe(303)
      const confirm = '/account/confirm?next=%2Faccount%2Fpassword'
      expect((await postForm(request, confirm, { password: PASSWORD })).status()).toBe(303)
      return {
        fields: { password: ATTACKER_PASSWORD, confirmation: ATTACKER_PASSWORD },
        async unchanged() {
          expect(await api.canSignIn(email, ATTACKER_PASSWORD), 'the attacker set the password').toBe(false)
          expect(await api.canSignIn(email, PASSWORD), 'the old password stopped working').toBe(true)
        },
      }
    },
  },
  {
    name: 'account verification email',
    path: '/account',
    async arrange({ request, admin }) {
      const email = uniqueEmail('csrf-account-verify')
      await admin.createUser(email, PASSWORD)
      expect((await postForm(request, '/?index', { email, password: PASSWORD })).status()).toBe(303)
      const confirm = '/account/confirm?next=%2Faccount'
      expect((await postForm(request, confirm, { password: PASSWORD })).status()).toBe(303)
      return {
        fields: { intent: 'verify' },
        async unchanged() {
          const sent = (await admin.oobCodes()).filter((c) => c.email === email && c.requestType === 'VERIFY_EMAIL')
          expect(sent, 'a verification email was sent').toEqual([])
        },
      }
    },
  },
  {
    name: 'language',
    path: '/language',
    async arrange({ context, baseURL }) {
      return {
        fields: { locale: 'en', returnTo: '/' },
        async unchanged() {
          expect(await cookieNamed(context, baseURL, 'i18n_redirected'), 'the language cookie was set').toBeUndefined()
        },
      }
    },
  },
  {
    name: 'consent',
    path: '/consent',
    async arrange({ context, baseURL }) {
      return {
        fields: { returnTo: '/' },
        async unchanged() {
          expect(await cookieNamed(context, baseURL, 'cookie_consent'), 'the consent cookie was set').toBeUndefined()
        },
      }
    },
  },
]

const variants: Variant[] = ['cross-site', 'cross-site, victim token', 'same-site, victim token']

let attacker: Attacker
test.beforeAll(async () => {
  attacker = await startAttacker()
})
test.afterAll(async () => {
  await attacker?.close()
})

test.describe('cross-site form posts are refused with 403 and change nothing', { tag: '@once' }, () => {
  for (const scenario of scenarios) {
    for (const variant of variants) {
      test(`${scenario.name} (${scenario.path}) — ${variant}`, async ({ context, page, admin, baseURL }) => {
        const portal = new URL(baseURL!).origin
        const arranged = await scenario.arrange({ context, page, request: context.request, admin, baseURL: portal })
        const fields = { ...arranged.fields }
        if (variant !== 'cross-site') {
          // The victim has had the portal open: a real csrf cookie, whose value the form repeats.
          expect((await context.request.get(portal)).ok()).toBe(true)
          const csrf = await cookieNamed(context, portal, 'csrf')
          expect(csrf, 'visiting the portal set no csrf cookie').toBeDefined()
          fields.csrf = csrf!.value
        }
        const attackerOrigin = variant.startsWith('same-site') ? attacker.sameSiteOrigin : attacker.crossSiteOrigin
        const posted = page.waitForResponse(
          (r) => r.request().method() === 'POST' && r.url().startsWith(`${portal}/`),
          { timeout: 15_000 },
        )
        await page.goto(`${attackerOrigin}${attacker.autoSubmitForm(`${portal}${scenario.path}`, fields)}`)
        const response = await posted
        await page.waitForLoadState('domcontentloaded')

        // The browser did what the scenario says it does (else the test proves nothing).
        const sent = await response.request().allHeaders()
        expect(sent['origin']).toBe(attackerOrigin)
        expect(sent['sec-fetch-site']).toBe(variant.startsWith('same-site') ? 'same-site' : 'cross-site')
        if (variant === 'same-site, victim token') expect(sent['cookie'] ?? '').toContain(`csrf=${fields.csrf}`)
        else expect(sent['cookie'] ?? '').not.toContain('csrf=')

        // Soft, so that the state checks below run whatever the page says.
        expect.soft(response.status(), `status of the forged ${scenario.path} post`).toBe(403)
        const contentType = (await response.allHeaders())['content-type'] ?? ''
        expect
          .soft(
            contentType,
            `the refusal is a page, not data (${(await response.text().catch(() => '')).slice(0, 80)})`,
          )
          .toContain('text/html')
        await expect
          .soft(page.getByRole('heading', { level: 1 }), 'the translated 403 page')
          .toHaveText(FORBIDDEN, { timeout: 3_000 })

        await arranged.unchanged()
      })
    }
  }
})
