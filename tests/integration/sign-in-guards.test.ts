import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { startPortal, type Portal } from '../../dev/portal'
import { waitFor } from '../../dev/ports'
import { csrfTokenIn } from '../support/csrf'
import { startHeldIdentity } from '../support/emulator-relay'
import { HttpBrowser } from '../support/http-browser'

/**
 * What the emulator cannot show on its own: a reset request answered before the service is, the answer to a post
 * whose cookies were blocked, and a service that hangs. (Captcha demands: recaptcha.test.ts.)
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Guarded-Pass-2026'

describe('the reset request', () => {
  it('is answered the same for a known and an unknown address while the identity service is held', async () => {
    const service = await startHeldIdentity(emulator.origin)
    const portal = await startPortal({
      FIREBASE_AUTH_EMULATOR_HOST: service.host,
      FIREBASE_PROJECT_ID: emulator.projectId,
      LOG_LEVEL: 'warn',
    })
    try {
      const known = uniqueEmail('reset-held')
      await admin.createUser(known, PASSWORD)
      const form = await new HttpBrowser(portal.url).load('/forgot-password')
      for (const email of [known, uniqueEmail('nobody')]) {
        const release = service.hold()
        const before = service.asked.length
        try {
          const res = await form.submit('/forgot-password', { email })
          await res.arrayBuffer()
          expect(res.status).toBe(303)
          expect(res.headers.get('location')).toBe('/forgot-password?sent=1')
          // The email is sent off the response path: the answer came while the service held the call.
          await expect.poll(() => service.asked.slice(before)).toContain('/v1/accounts:sendOobCode')
        } finally {
          release()
        }
      }
      await waitFor('the reset email', async () => {
        const codes = await admin.oobCodes()
        return codes.some((code) => code.email === known && code.requestType === 'PASSWORD_RESET')
      }, 15_000)
    } finally {
      await portal.stop()
      await service.close()
    }
  })
})

describe('the sign-in form', () => {
  it('posts to "/" itself, and a plain POST / (as curl sends it, with the cookies and token) signs in', async () => {
    const email = uniqueEmail('plain-post')
    await admin.createUser(email, PASSWORD)
    const browser = new HttpBrowser(inject('portal').url)
    expect(await (await browser.get('/')).text()).toMatch(/<form class="stack"[^>]* action="\/" method="post"/)
    const signIn = await browser.post('/', { email, password: PASSWORD }, '/')
    expect(signIn.status).toBe(303)
    expect((await browser.get('/account')).status).toBe(200)
  })
})

describe('a post whose cookies the browser did not send', () => {
  it('explains that cookies are blocked, with the help link, instead of a bare 403: the site’s own, or third-party ones in a frame', async () => {
    const emu = { FIREBASE_AUTH_EMULATOR_HOST: emulator.host, FIREBASE_PROJECT_ID: emulator.projectId }
    const portal = await startPortal({ ...emu, COOKIES_HELP_URL: 'https://help.example/cookies' })
    try {
      const page = await (await fetch(`${portal.url}/forgot-password`)).text()
      const csrf = csrfTokenIn(page) ?? ''
      const post = (headers: Record<string, string>) =>
        fetch(`${portal.url}/forgot-password`, {
          method: 'POST',
          redirect: 'manual',
          headers: { Origin: portal.url, ...headers },
          body: new URLSearchParams({ csrf, email: 'someone@example.com' }),
        })
      // The portal's own page: its cookie is a first-party one.
      const own = await post({ 'Sec-Fetch-Dest': 'document' })
      expect(own.status).toBe(403)
      const html = await own.text()
      expect(html).toContain('Veuillez activer les cookies de ce site dans votre navigateur pour continuer.')
      expect(html).not.toContain('cookies tiers')
      expect(html).toContain('href="https://help.example/cookies"')
      // In another site's frame, the third-party cookie message.
      const framed = await (await post({ 'Sec-Fetch-Dest': 'iframe', Cookie: 'i18n_redirected=en' })).text()
      expect(framed).toContain('Please enable third-party cookies in your browser to continue.')
    } finally {
      await portal.stop()
    }
  })
})

describe('an identity service that hangs', () => {
  const TIMEOUT_MS = 6_000
  let hung: Server
  let portal: Portal
  let signInsSeen = 0

  beforeAll(async () => {
    // Takes every request and never answers, as a service that has stalled.
    hung = createServer((req) => {
      if (req.url?.includes('accounts:signInWithPassword')) signInsSeen++
    })
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r))
    const high = '1000000'
    portal = await startPortal({
      FIREBASE_AUTH_EMULATOR_HOST: `127.0.0.1:${(hung.address() as AddressInfo).port}`,
      FIREBASE_PROJECT_ID: emulator.projectId,
      IDENTITY_TIMEOUT_MS: String(TIMEOUT_MS),
      IDENTITY_MAX_IN_FLIGHT: '10',
      RATE_LIMIT_SIGNIN_PER_EMAIL_IP: high,
      RATE_LIMIT_SIGNIN_PER_IP: high,
      RATE_LIMIT_SIGNIN_PER_EMAIL: high,
    })
  })

  afterAll(async () => {
    await portal?.stop()
    hung.closeAllConnections()
    await new Promise((r) => hung.close(r))
  })

  it('sign-ins beyond IDENTITY_MAX_IN_FLIGHT are answered at once (503), and pages keep being served', async () => {
    const form = await new HttpBrowser(portal.url).load()
    const started = Date.now()
    const answers = Array.from({ length: 30 }, (_, i) =>
      form.submit('/?index', { email: `hung${i}@example.com`, password: 'Wrong-password-1' }).then((r) => ({
        status: r.status,
        ms: Date.now() - started,
      })),
    )
    // Well before the time-out: the health check, a page, and most of the sign-ins, refused.
    await new Promise((r) => setTimeout(r, 1_500))
    expect((await fetch(`${portal.url}/healthz`)).status).toBe(200)
    expect((await fetch(`${portal.url}/`)).status).toBe(200)
    const all = await Promise.all(answers)
    expect(all.every((a) => a.status === 503)).toBe(true)
    // The 10 in flight wait for the time-out; the others are refused without waiting for anything,
    // which on a crowded machine can still take a second or two: the time-out is the line between.
    const atOnce = all.filter((a) => a.ms < TIMEOUT_MS).length
    expect(atOnce).toBeGreaterThanOrEqual(20)
    expect(signInsSeen).toBeLessThanOrEqual(10)
    expect(signInsSeen).toBeGreaterThan(0)
  })
})
