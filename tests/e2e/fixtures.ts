import { test as base, expect, type BrowserContext, type Page, type Response } from '@playwright/test'
import { emulatorAdmin } from '../../dev/emulator'
import { startPortal, type Portal } from '../../dev/portal'
import { getFreePort } from '../../dev/ports'
import { startMfaIdentity } from '../support/mfa-identity'
import { COMMON_LABELS } from '../support/labels'
import { BROWSER_TEST_SETTINGS } from '../support/shared-portal'
import { PagePool, type Pooled } from './page-pool'
import { WorkerServers } from './worker-servers'

function required(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set: the e2e global set-up did not run`)
  return value
}

/** The emulator's admin client (dev/emulator.ts) that the `admin` fixture gives. */
export type Admin = ReturnType<typeof emulatorAdmin>

/**
 * baseURL points at the portal the global set-up started; `admin` talks to its emulator.
 * `context` and `page` come from the worker's pool, put back as new after each test (page-pool.ts).
 * A console error in the page fails the test.
 */
export const test = base.extend<
  {
    admin: Admin
    /** Pages that log an error by design (the error page writes the error to the console). */
    consoleErrorsExpected: boolean
    failOnConsoleError: void
    pooled: Pooled
    /** Opens another browser with the test's address, JavaScript and language: a context of its own, closed after the test. */
    anotherBrowser: (options?: { userAgent?: string }) => Promise<{ context: BrowserContext; page: Page }>
  },
  { pagePool: PagePool; workerServers: WorkerServers }
>({
  consoleErrorsExpected: [false, { option: true }],
  baseURL: async ({}, use) => use(required('PORTAL_URL')),
  pagePool: [
    async ({ browser }, use) => {
      const pool = new PagePool(browser)
      await use(pool)
      await pool.close()
    },
    { scope: 'worker' },
  ],
  workerServers: [
    async ({}, use) => {
      const servers = new WorkerServers()
      await use(servers)
      await servers.close()
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  // Every context option a test can set, so that a different one never gets a pooled context made without it.
  pooled: async (
    {
      pagePool, acceptDownloads, baseURL, bypassCSP, clientCertificates, colorScheme, contextOptions, contrast,
      deviceScaleFactor, extraHTTPHeaders, forcedColors, geolocation, hasTouch, httpCredentials, ignoreHTTPSErrors,
      isMobile, javaScriptEnabled, locale, offline, permissions, proxy, reducedMotion, screen, serviceWorkers,
      storageState, timezoneId, userAgent, viewport,
    },
    use,
  ) => {
    const pooled = await pagePool.take({
      ...contextOptions, acceptDownloads, baseURL, bypassCSP, clientCertificates, colorScheme, contrast,
      deviceScaleFactor, extraHTTPHeaders, forcedColors, geolocation, hasTouch, httpCredentials, ignoreHTTPSErrors,
      isMobile, javaScriptEnabled, locale, offline, permissions, proxy, reducedMotion, screen, serviceWorkers,
      storageState, timezoneId, userAgent, viewport,
    })
    await use(pooled)
    await pagePool.putBack(pooled)
  },
  context: async ({ pooled }, use) => use(pooled.context),
  page: async ({ pooled }, use) => use(pooled.page),
  anotherBrowser: async ({ browser, baseURL, javaScriptEnabled, locale }, use) => {
    const opened: BrowserContext[] = []
    await use(async (options = {}) => {
      const context = await browser.newContext({ baseURL, javaScriptEnabled, locale, ...options })
      opened.push(context)
      return { context, page: await context.newPage() }
    })
    await Promise.all(opened.map((context) => context.close()))
  },
  admin: async ({}, use) =>
    use(emulatorAdmin({ origin: required('EMULATOR_ORIGIN'), projectId: required('EMULATOR_PROJECT_ID') })),
  failOnConsoleError: [
    async ({ page, consoleErrorsExpected }, use) => {
      const errors: string[] = []
      page.on('console', (message) => {
        // The browser logs every 4xx/5xx document as a failed resource: statuses are asserted elsewhere.
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text())
      })
      page.on('pageerror', (error) => errors.push(error.message))
      await use()
      if (!consoleErrorsExpected) expect(errors, 'console errors in the page').toEqual([])
    },
    { auto: true },
  ],
})

/** A portal's start on a crowded machine can outlast a test's time-out (dev/portal.ts waits up to 2 min). */
const SERVER_FIXTURE = { timeout: 150_000 } as const
type ServerFixture<T> = [(args: { workerServers: WorkerServers }, use: (value: T) => Promise<void>) => Promise<void>, typeof SERVER_FIXTURE]

/**
 * What a spec starts for its tests: a portal with settings of its own, a stand-in service. It is
 * started by the first test of a worker that asks for it and kept for the worker's next tests
 * (test-scoped on top of the worker's cache, worker-servers.ts, so that every spec shares the
 * same workers, browser and page pool). `stop` is called once its tests are over: a portal is killed,
 * since its graceful shutdown waits for requests still open, up to 10 s (twice in one measured run).
 */
function perWorker<T>(start: () => Promise<T>, stop: (value: T) => Promise<unknown>): ServerFixture<T> {
  const key = Symbol('server')
  return [async ({ workerServers }, use) => use(await workerServers.get(key, start, stop)), SERVER_FIXTURE]
}

/**
 * A portal on the global set-up's emulator (or a stand-in at `identityHost` in front of it), with the
 * shared portal's settings and `settings` on top.
 */
function startOnEmulator(settings: Record<string, string>, identityHost = new URL(required('EMULATOR_ORIGIN')).host) {
  return startPortal({
    FIREBASE_AUTH_EMULATOR_HOST: identityHost,
    FIREBASE_PROJECT_ID: required('EMULATOR_PROJECT_ID'),
    ...BROWSER_TEST_SETTINGS,
    ...settings,
  })
}

/**
 * A portal of a spec's own on the global set-up's emulator, started with the shared portal's settings
 * and `settings` on top (a function: asked when it starts).
 */
export function ownPortal(settings: () => Record<string, string> | Promise<Record<string, string>>): ServerFixture<Portal> {
  return perWorker(
    async () => startOnEmulator(await settings()),
    (portal) => portal.stop('SIGKILL'),
  )
}

/** `test` with its pages on a portal of the spec's own (ownPortal, loggedPortal, everyWayPortal), given as `portal`. */
export function testOn(fixture: ServerFixture<Portal>) {
  return test.extend<{ portal: Portal }>({ portal: fixture, baseURL: async ({ portal }, use) => use(portal.url) })
}

/** testOn for the single sign-on specs: the emulator's provider page loads styles and scripts from CDNs, which tests never reach. */
export function ssoTestOn(fixture: ServerFixture<Portal>) {
  return testOn(fixture).extend({
    page: async ({ page }, use) => {
      await page.route(/^https:\/\/(unpkg\.com|fonts\.googleapis\.com)\//, (route) => route.abort())
      await use(page)
    },
  })
}

/** shortWaitPortal's RESEND_WAIT_SECONDS: a "Resend code" or "Send the email again" wait a test can sit out. */
export const SHORT_RESEND_WAIT = 6

/** A portal whose sent codes and emails may go again after SHORT_RESEND_WAIT seconds instead of 30. */
export const shortWaitPortal = ownPortal(() => ({ RESEND_WAIT_SECONDS: String(SHORT_RESEND_WAIT) }))

/** A portal of the worker's own with the shared portal's settings: for the specs that read its log. */
export const loggedPortal = ownPortal(() => ({}))

/** everyWayPortal's session lifetimes (SESSION_MAX_AGE and SESSION_REMEMBER_MAX_AGE), in seconds: shorter than the defaults. */
export const SESSION_AGES = { session: 3_600, remembered: 86_400 }

/**
 * The same, with every way to sign in on (the password, an emailed link, the identity provider),
 * SESSION_AGES, and its own address under its other host name (127.0.0.1) allowed as a redirect origin.
 */
export const everyWayPortal = ownPortal(async () => {
  const port = await getFreePort()
  return {
    PORT: String(port),
    FLAG_EMAIL_LINK_SIGN_IN: 'true',
    FLAG_SSO: 'true',
    SSO_PROVIDER_ID: 'google.com',
    SESSION_MAX_AGE: String(SESSION_AGES.session),
    SESSION_REMEMBER_MAX_AGE: String(SESSION_AGES.remembered),
    REDIRECT_ALLOWED_ORIGINS: `http://127.0.0.1:${port}`,
  }
})

/**
 * A loopback stand-in for the identity service, in front of the global set-up's emulator (`start`
 * is given its origin and project), and a portal of a spec's own that talks to it, started with the
 * shared portal's settings and `settings` on top (or what `settings(identity)` gives).
 */
export function portalBehind<Identity extends { host: string; close(): Promise<void> }>(
  start: (emulator: { origin: string; projectId: string }) => Promise<Identity>,
  settings: Record<string, string> | ((identity: Identity) => Record<string, string>) = {},
): ServerFixture<{ identity: Identity; portal: Portal }> {
  return perWorker(
    async () => {
      const identity = await start({ origin: required('EMULATOR_ORIGIN'), projectId: required('EMULATOR_PROJECT_ID') })
      const own = typeof settings === 'function' ? settings(identity) : settings
      return { identity, portal: await startOnEmulator(own, identity.host) }
    },
    async ({ identity, portal }) => {
      await portal.stop('SIGKILL')
      await identity.close()
    },
  )
}

/**
 * A loopback stand-in a portal of a spec's own reports to (`start`), and that portal, started with
 * the shared portal's settings and `settings(service)` on top. Both are stopped together.
 */
export function portalWith<Service extends { close(): unknown }>(
  start: () => Promise<Service>,
  settings: (service: Service) => Record<string, string>,
): ServerFixture<{ service: Service; portal: Portal }> {
  return perWorker(
    async () => {
      const service = await start()
      return { service, portal: await startOnEmulator(settings(service)) }
    },
    async ({ service, portal }) => {
      await portal.stop('SIGKILL')
      await service.close()
    },
  )
}

/** A portal behind the loopback TOTP service (tests/support/mfa-identity.ts), for the authenticator apps the emulator lacks. */
export const totpPortal = portalBehind((emulator) => startMfaIdentity(emulator.origin))

export { COMMON_LABELS }

/**
 * A flow written once per language runs each copy in one project: French with JavaScript, English without
 * (ADR 085). The language changes the words, not the way through: each way is still taken with and without
 * JavaScript, and Firefox's flows, the accessibility and string specs keep both languages in both.
 */
export const oneModePerLanguage = (language: string) => ({ tag: language.startsWith('fr') ? '@js-only' : '@no-js-only' })

/** The language the page is in. */
const languageOf = async (page: Page) => ((await page.locator('html').getAttribute('lang'))?.startsWith('en') ? 'en' : 'fr')

/** Fills and posts the sign-in form at `path` (the sign-in page by default), in whichever language it is, and waits for its answer. */
export async function signIn(page: Page, email: string, password: string, path = '/') {
  await page.goto(path)
  const l = COMMON_LABELS[await languageOf(page)]
  await page.getByLabel(l.email, { exact: true }).fill(email)
  await page.getByLabel(l.password, { exact: true }).fill(password)
  // Until the answer is in, a next page.goto would cut the sign-in short.
  const answered = page.waitForResponse((response) => response.request().method() === 'POST')
  await page.getByRole('button', { name: l.signIn }).click()
  await answered
}

/**
 * Asks for a sign-in link for `email` on the sign-in page at `path`, and waits for the page to say
 * it is sent: the answer carries the cookie that binds the link to this browser, which a next
 * `page.goto` (to the link) would cut short.
 */
export async function askForSignInLink(page: Page, email: string, path = '/') {
  await page.goto(path)
  const l = COMMON_LABELS[await languageOf(page)]
  await page.getByLabel(l.email, { exact: true }).fill(email)
  await page.getByRole('button', { name: l.linkButton }).click()
  await expect(page.getByRole('status')).toHaveText(l.linkSent)
}

/**
 * "Log out" on /logout, in the page's language, and waits for the page to say it is done: with
 * JavaScript the post is a fetch, which a next `page.goto` would cut short, the session kept.
 */
export async function logOut(page: Page) {
  await page.goto('/logout')
  const l = COMMON_LABELS[await languageOf(page)]
  await page.getByRole('button', { name: l.logout, exact: true }).click()
  await expect(page.getByRole('status')).toHaveText(l.signedOut)
}

/** Waits for "Confirm it's you", in whichever language, and answers it with `password`. */
export async function confirmItsYou(page: Page, password: string) {
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(new RegExp(`^(${COMMON_LABELS.fr.confirm}|${COMMON_LABELS.en.confirm})$`))
  const l = COMMON_LABELS[await languageOf(page)]
  await page.getByLabel(l.password, { exact: true }).fill(password)
  await page.getByRole('button', { name: l.continue }).click()
}

/**
 * The session cookie as the browser keeps it: the random id of the session's record (ADR 063), HttpOnly.
 * How long the record and the service's session last is tested beside the store (tests/integration/sessions.test.ts).
 */
export async function sessionCookie(context: BrowserContext) {
  const cookie = (await context.cookies()).find((c) => c.name === 'session')
  expect(cookie, 'a session cookie').toBeDefined()
  expect(cookie!.value).toMatch(/^[\w-]{43}$/)
  expect(cookie!.httpOnly).toBe(true)
  return { value: cookie!.value, expires: cookie!.expires }
}

/** The `session` cookies the portal's responses set while `act` runs. `act` ends on the page it led to. */
export async function sessionsSetDuring(page: Page, act: () => Promise<void>) {
  const headers: Promise<string | null>[] = []
  const listen = (response: Response) => headers.push(response.headerValue('set-cookie'))
  page.on('response', listen)
  try {
    await act()
  } finally {
    page.off('response', listen)
  }
  return (await Promise.all(headers)).flatMap((h) => (h ?? '').split('\n')).filter((c) => /^session=[^;]/.test(c))
}

/** How every token the emulator mints begins (header {"alg":"none",…}), and its pending credentials and SMS sessions. */
export const EMULATOR_SECRETS = ['eyJhbGciOi', 'eyJfQXV0aEVtdWxhdG9y']

/** Asks for a password reset for `email` (in French) and opens the new-password page from the email. */
export async function openNewPassword(page: Page, admin: Admin, email: string) {
  await page.goto('/forgot-password')
  await page.getByLabel('Adresse électronique').fill(email)
  await page.getByRole('button', { name: 'Envoyer le courriel' }).click()
  await expect(page.getByRole('status')).toBeVisible()
  await page.goto(await admin.emailedLink(email, 'PASSWORD_RESET', new URL(page.url()).origin))
  await expect(page.getByRole('heading', { name: 'Veuillez saisir un nouveau mot de passe' })).toBeVisible()
}

/**
 * An error about one field's value stands under that field, which names it as its description and
 * is marked invalid; the page has no alert of its own for it.
 */
export async function expectFieldError(page: Page, label: string, message: string) {
  const field = page.getByLabel(label, { exact: true })
  await expect(field).toHaveAccessibleDescription(message)
  await expect(field).toHaveAttribute('aria-invalid', 'true')
  await expect(page.getByRole('alert')).toHaveCount(0)
}

/** A code the emulator did not send: the right one with its last digit changed. */
export const wrongCodeFor = (code: string) => `${code.slice(0, 5)}${(Number(code[5]) + 1) % 10}`

export { expect }
