import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import {
  BUDGETS,
  PAGES,
  SIGNED_IN_PAGES,
  kb,
  measurePage,
  measurePages,
  staticFiles,
  type PageSize,
} from '../support/page-size'
import { SERVER_ENTRY, startPortal, type Portal } from '../../dev/portal'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { HttpBrowser } from '../support/http-browser'
import { startMfaIdentity, type MfaIdentity } from '../support/mfa-identity'
import { totpCode } from '../support/totp'

/**
 * Page weight budgets on the production build (`npm run size` prints the same figures), measured
 * as production serves them: with error reporting on (SENTRY_DSN set), whose reporter must not
 * weigh on a first visit. The test runner builds before vitest; without a build this must fail,
 * never pass by skipping.
 */

const emu = inject('emulator')
let portal: Portal | undefined
let loop: MfaIdentity | undefined
const pages = new Map<string, PageSize>()
/** Kept and rethrown by every test: a throwing beforeAll would mark the tests skipped, not failed. */
let setupError: Error | undefined

beforeAll(async () => {
  try {
    if (!existsSync(SERVER_ENTRY)) {
      throw new Error(`${SERVER_ENTRY} is missing. Run \`npm run build\` first (\`npm test\` builds before vitest).`)
    }
    portal = await startPortal({
      LOG_LEVEL: 'warn',
      FIREBASE_AUTH_EMULATOR_HOST: emu.host,
      FIREBASE_PROJECT_ID: emu.projectId,
      // Nothing listens there: a first visit sends no report.
      SENTRY_DSN: 'http://publickey@127.0.0.1:9/1',
      // /sign-up is measured too.
      FLAG_SIGN_UP: 'true',
    })
    for (const page of await measurePages(portal.url)) pages.set(page.path, page)
    await measureSignedIn()
  } catch (error) {
    setupError = error as Error
  }
})
afterAll(async () => {
  await portal?.stop()
  await loop?.close()
})

/**
 * The second factors' pages, signed in with an authenticator app being added, through the loopback
 * identity service (the emulator has no TOTP); the removal page names that app once added.
 */
async function measureSignedIn() {
  loop = await startMfaIdentity(emu.origin)
  const own = await startPortal({
    LOG_LEVEL: 'warn',
    FIREBASE_AUTH_EMULATOR_HOST: loop.host,
    FIREBASE_PROJECT_ID: emu.projectId,
    SENTRY_DSN: 'http://publickey@127.0.0.1:9/1',
  })
  try {
    const admin = emulatorAdmin(emu)
    const email = uniqueEmail('page-size')
    const password = 'Page-Size-Pass-2026'
    const { localId } = await admin.createUser(email, password)
    await admin.enrollSms(localId, []) // verified, no factor yet
    const browser = new HttpBrowser(own.url)
    await browser.post('/?index', { email, password })
    const totp = '/account/second-factor/totp'
    const confirm = `/account/confirm?next=${encodeURIComponent(totp)}`
    await browser.post(confirm, { password }, confirm)
    const cookie = () => [...browser.jar].map(([n, v]) => `${n}=${v}`).join('; ')
    const secret =
      /<code>([A-Z2-7 ]+)<\/code>/.exec(await (await browser.get(totp)).text())?.[1]?.replace(/ /g, '') ?? ''
    pages.set(totp, await measurePage(own.url, totp, cookie()))
    const phone = '/account/second-factor/phone'
    pages.set(phone, await measurePage(own.url, phone, cookie()))
    await browser.post(totp, { code: totpCode(secret) }, totp)
    pages.set('/account', await measurePage(own.url, '/account', cookie()))
    const factor = /name="factor" value="([^"]+)"/.exec(await (await browser.get('/account')).text())?.[1] ?? ''
    const remove = `/account/second-factor/remove?factor=${factor}`
    pages.set('/account/second-factor/remove', { ...(await measurePage(own.url, remove, cookie())), path: remove })
  } finally {
    await own.stop()
  }
}

function measured(path: string): PageSize {
  if (setupError) throw new Error(`page-size: could not measure the pages: ${setupError.message}`)
  const page = pages.get(path)!
  // The page itself, not the sign-in or confirmation page it would redirect to.
  expect(page.status, path).toBe(page.path === '/new-password' ? 400 : 200)
  return page
}

const figures = (page: PageSize, kind: 'css' | 'js') =>
  page[kind].map((r) => `${new URL(r.url).pathname} ${kb(r.gzip)} KB`).join(', ')

describe.each([...PAGES, ...SIGNED_IN_PAGES])('a first visit to %s (gzip)', (path) => {
  const page = () => measured(path)

  it(`sends HTML under ${kb(BUDGETS.html)} KB`, () => {
    expect(page().total.html, `${kb(page().total.html)} KB`).toBeLessThan(BUDGETS.html)
  })

  it(`loads CSS under ${kb(BUDGETS.css)} KB`, () => {
    expect(page().css.length, 'at least one stylesheet found').toBeGreaterThan(0)
    expect(page().total.css, figures(page(), 'css')).toBeLessThan(BUDGETS.css)
  })

  it(`loads JavaScript under ${kb(BUDGETS.js)} KB in total, error reporting on`, () => {
    expect(page().reporting, 'the page turns the error reporter on').toBe(true)
    expect(page().js.length, 'at least one script found').toBeGreaterThan(0)
    expect(page().total.js, `${kb(page().total.js)} KB: ${figures(page(), 'js')}`).toBeLessThan(BUDGETS.js)
  })

  it('loads no font from another origin', () => {
    expect(page().externalFonts).toEqual([])
  })
})

describe('static files', () => {
  it(`are each under ${kb(BUDGETS.file)} KB (public/ and images in build/client/assets)`, () => {
    measured('/')
    const files = staticFiles()
    expect(files.length, 'public/ is empty or unreadable').toBeGreaterThan(0)
    expect(files.filter((f) => f.bytes >= BUDGETS.file)).toEqual([])
  })
})
