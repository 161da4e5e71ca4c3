import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { startPortal, type Portal } from '../../dev/portal'
import { getFreePort } from '../../dev/ports'
import { HttpBrowser } from '../support/http-browser'
import {
  SITE_KEY,
  startRecaptchaScriptStub,
  startRecaptchaService,
  type Enforcement,
  type RecaptchaScriptStub,
  type RecaptchaService,
} from '../support/recaptcha'

/**
 * reCAPTCHA Enterprise as Identity Platform enforces it (ADR 020), without a browser:
 * what the pages announce, the CSP, what reaches the identity service, and the answers to forms
 * posted without JavaScript (no token) or with the token the page's script adds. The browser side
 * (one click, the retry) is tests/e2e/recaptcha.spec.ts.
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Captcha-Guarded-2026'
const TOKEN_FIELD = 'g-recaptcha-response'

interface Setup {
  service: RecaptchaService
  stub: RecaptchaScriptStub
  portal: Portal
  metricsUrl: string
}

async function setUp(state: Enforcement, env: Record<string, string> = {}): Promise<Setup> {
  const service = await startRecaptchaService({ emulatorOrigin: emulator.origin, state })
  const stub = await startRecaptchaScriptStub()
  const metricsPort = await getFreePort()
  const portal = await startPortal({
    FIREBASE_AUTH_EMULATOR_HOST: service.host,
    FIREBASE_PROJECT_ID: emulator.projectId,
    RECAPTCHA_SCRIPT_URL: stub.url,
    METRICS_PORT: String(metricsPort),
    LOG_LEVEL: 'debug',
    ...env,
  })
  return { service, stub, portal, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` }
}

async function tearDown(setup: Setup | undefined) {
  await setup?.portal.stop()
  await setup?.service.stop()
  await setup?.stub.stop()
}

const hasSession = (res: Response) => res.headers.getSetCookie().some((c) => /^(__Host-)?session=[^;]/.test(c))

async function csp(url: string): Promise<string> {
  return (await fetch(url)).headers.get('content-security-policy') ?? ''
}

async function metric(url: string, action: string, outcome: string): Promise<number> {
  const text = await (await fetch(url)).text()
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`portal_captcha_total{action="${action}",outcome="${outcome}"}`))
  return line ? Number(line.split(' ').pop()) : 0
}

describe('reCAPTCHA enforced (ENFORCE) on email and password', () => {
  let setup: Setup

  beforeAll(async () => {
    setup = await setUp('ENFORCE', { FLAG_EMAIL_LINK_SIGN_IN: 'true' })
  })
  afterAll(() => tearDown(setup))

  it('pages name the script at RECAPTCHA_SCRIPT_URL with the site key; the CSP admits exactly its origin', async () => {
    const src = `${setup.stub.url}?render=${SITE_KEY}`
    for (const page of ['/', '/forgot-password']) {
      const html = await (await fetch(`${setup.portal.url}${page}`)).text()
      expect(html, page).toContain(src)
      const policy = await csp(`${setup.portal.url}${page}`)
      expect(policy).toMatch(new RegExp(`script-src [^;]*${setup.stub.origin}/recaptcha/( |;|$)`))
      expect(policy).toMatch(new RegExp(`frame-src [^;]*${setup.stub.origin}/recaptcha/( |;|$)`))
      expect(policy).not.toContain('https://www.google.com')
    }
    // The script is never fetched by the portal itself: only browsers with JavaScript load it.
    expect(setup.stub.requests).toEqual([])
  })

  it('without JavaScript a sign-in is refused: an alert naming JavaScript, the email kept, status 400, no session', async () => {
    const email = uniqueEmail('captcha-nojs')
    await admin.createUser(email, PASSWORD)
    const form = await new HttpBrowser(setup.portal.url).load()
    const res = await form.submit('/?index', { email, password: PASSWORD })
    expect(res.status).toBe(400)
    const html = await res.text()
    expect(html).toMatch(/role="alert"[^>]*>[^<]*JavaScript/)
    expect(html).toContain(`value="${email}"`)
    expect(html).not.toContain(PASSWORD)
    expect(hasSession(res)).toBe(false)
    expect(setup.service.seen.at(-1)).toMatchObject({
      call: 'signInWithPassword',
      token: null,
      refused: 'MISSING_RECAPTCHA_TOKEN',
    })
  })

  it('the same in English', async () => {
    const email = uniqueEmail('captcha-en')
    const form = await new HttpBrowser(setup.portal.url, { headers: { 'Accept-Language': 'en-US' } }).load()
    const res = await form.submit('/?index', { email, password: PASSWORD })
    expect(res.status).toBe(400)
    expect(await res.text()).toMatch(/role="alert"[^>]*>[^<]*JavaScript/)
  })

  it('a sign-in posted with a token for its action signs in; the service gets it with clientType and recaptchaVersion', async () => {
    const email = uniqueEmail('captcha-token')
    await admin.createUser(email, PASSWORD)
    const form = await new HttpBrowser(setup.portal.url).load()
    const res = await form.submit('/?index', { email, password: PASSWORD, [TOKEN_FIELD]: 'token-for-signInWithPassword.1' })
    expect(res.status).toBe(303)
    expect(hasSession(res)).toBe(true)
    expect(setup.service.seen.at(-1)).toEqual({
      call: 'signInWithPassword',
      token: 'token-for-signInWithPassword.1',
      clientType: 'CLIENT_TYPE_WEB',
      recaptchaVersion: 'RECAPTCHA_ENTERPRISE',
      refused: null,
    })
  })

  it('a token the service refuses (another action) is a failed check, not a sign-in; the page is told it may retry', async () => {
    const email = uniqueEmail('captcha-wrong')
    await admin.createUser(email, PASSWORD)
    const form = await new HttpBrowser(setup.portal.url, { headers: { 'Accept-Language': 'en-US' } }).load()
    const res = await form.submit('/?index', { email, password: PASSWORD, [TOKEN_FIELD]: 'token-for-getOobCode.1' })
    expect(res.status).toBe(400)
    const html = await res.text()
    expect(html).toContain('The captcha check failed. Please try again.')
    expect(html).not.toContain(PASSWORD)
    expect(hasSession(res)).toBe(false)
    expect(setup.service.seen.at(-1)?.refused).toBe('INVALID_RECAPTCHA_ACTION')
  })

  it('without JavaScript the reset request says the page needs JavaScript, in each language, and calls nothing', async () => {
    const email = uniqueEmail('captcha-reset-nojs')
    await admin.createUser(email, PASSWORD)
    const calls = setup.service.seen.filter((s) => s.call === 'sendOobCode').length
    const needsJs = {
      en: 'For your security, this form runs an automatic check that needs JavaScript.',
      fr: 'Pour votre sécurité, ce formulaire effectue une vérification automatique qui nécessite JavaScript.',
    }
    for (const [language, message] of Object.entries(needsJs)) {
      const form = await new HttpBrowser(setup.portal.url, { headers: { 'Accept-Language': language } }).load('/forgot-password')
      const res = await form.submit('/forgot-password', { email })
      // The same for every address (enforcement and a missing token are all it depends on): no enumeration.
      expect(res.status).toBe(400)
      const html = await res.text()
      expect(html).toMatch(new RegExp(`role="alert"[^>]*>${message}`))
      expect(html).toContain(`value="${email}"`)
    }
    expect(setup.service.seen.filter((s) => s.call === 'sendOobCode').length).toBe(calls)
    expect((await admin.oobCodes()).filter((c) => c.email === email)).toEqual([])
  })

  it('a reset request posted with a getOobCode token sends the email', async () => {
    const email = uniqueEmail('captcha-reset')
    await admin.createUser(email, PASSWORD)
    const form = await new HttpBrowser(setup.portal.url).load('/forgot-password')
    const res = await form.submit('/forgot-password', { email, [TOKEN_FIELD]: 'token-for-getOobCode.1' })
    expect(res.status).toBe(303)
    await expect.poll(async () => (await admin.oobCodes()).filter((c) => c.email === email).length).toBe(1)
    expect(setup.service.seen.find((s) => s.call === 'sendOobCode' && s.token === 'token-for-getOobCode.1')).toEqual({
      call: 'sendOobCode',
      token: 'token-for-getOobCode.1',
      clientType: 'CLIENT_TYPE_WEB',
      recaptchaVersion: 'RECAPTCHA_ENTERPRISE',
      refused: null,
    })
  })

  it('the sign-in link goes with a getOobCode token; without one it is not sent and the log says why', async () => {
    const [withToken, without] = [uniqueEmail('captcha-link'), uniqueEmail('captcha-link-nojs')]
    await admin.createUser(withToken, PASSWORD)
    await admin.createUser(without, PASSWORD)
    const form = await new HttpBrowser(setup.portal.url).load()
    const sent = await form.submit('/?index', {
      email: withToken,
      intent: 'email-link',
      [TOKEN_FIELD]: 'token-for-getOobCode.7',
    })
    expect(sent.status).toBe(303)
    await expect.poll(async () => (await admin.oobCodes()).filter((c) => c.email === withToken).length).toBe(1)
    expect(
      setup.service.seen.some((s) => s.call === 'sendOobCode' && s.token === 'token-for-getOobCode.7' && !s.refused),
    ).toBe(true)

    const refused = await form.submit('/?index', { email: without, intent: 'email-link' })
    expect(refused.status).toBe(303)
    await expect.poll(() => setup.portal.output()).toMatch(/sign-in link not sent: the reCAPTCHA check refused it/)
    expect((await admin.oobCodes()).filter((c) => c.email === without)).toEqual([])
  })

  it('counts captcha outcomes by action, and no token reaches the logs', async () => {
    await expect.poll(() => metric(setup.metricsUrl, 'getOobCode', 'passed')).toBeGreaterThan(0)
    expect(await metric(setup.metricsUrl, 'signInWithPassword', 'missing')).toBeGreaterThan(0)
    expect(await metric(setup.metricsUrl, 'signInWithPassword', 'passed')).toBeGreaterThan(0)
    expect(await metric(setup.metricsUrl, 'signInWithPassword', 'refused')).toBeGreaterThan(0)
    expect(await metric(setup.metricsUrl, 'getOobCode', 'missing')).toBeGreaterThan(0)
    expect(setup.portal.output()).not.toContain('token-for-')
    expect(setup.portal.output()).not.toContain(PASSWORD)
  })
})

describe('reCAPTCHA in AUDIT', () => {
  let setup: Setup
  beforeAll(async () => {
    setup = await setUp('AUDIT')
  })
  afterAll(() => tearDown(setup))

  it('blocks nothing without JavaScript, and still lets the page load the script', async () => {
    const email = uniqueEmail('captcha-audit')
    await admin.createUser(email, PASSWORD)
    const form = await new HttpBrowser(setup.portal.url).load()
    const res = await form.submit('/?index', { email, password: PASSWORD })
    expect(res.status).toBe(303)
    expect(hasSession(res)).toBe(true)
    expect(await (await fetch(`${setup.portal.url}/`)).text()).toContain(`${setup.stub.url}?render=${SITE_KEY}`)
    expect(await csp(`${setup.portal.url}/`)).toContain(setup.stub.origin)
  })
})

describe('reCAPTCHA off', () => {
  it('with the emulator (501): no script named, no reCAPTCHA origin in the CSP, and a posted token is not passed on', async () => {
    const stub = await startRecaptchaScriptStub()
    const portal = await startPortal({
      FIREBASE_AUTH_EMULATOR_HOST: emulator.host,
      FIREBASE_PROJECT_ID: emulator.projectId,
      RECAPTCHA_SCRIPT_URL: stub.url,
    })
    try {
      for (const page of ['/', '/forgot-password']) {
        const html = await (await fetch(`${portal.url}${page}`)).text()
        expect(html).not.toContain(stub.origin)
        expect(html).not.toContain('render=')
        const policy = await csp(`${portal.url}${page}`)
        expect(policy).not.toContain(stub.origin)
        expect(policy).not.toMatch(/recaptcha|google|frame-src/)
      }
      // The emulator answers 501 to any captchaResponse: a token sent while enforcement is off would be a 503.
      const email = uniqueEmail('captcha-off')
      await admin.createUser(email, PASSWORD)
      const form = await new HttpBrowser(portal.url).load()
      const res = await form.submit('/?index', { email, password: PASSWORD, [TOKEN_FIELD]: 'token-for-signInWithPassword.1' })
      expect(res.status).toBe(303)
    } finally {
      await portal.stop()
      await stub.stop()
    }
  })

  it('with enforcement OFF in the service: no script named, no reCAPTCHA origin in the CSP', async () => {
    const setup = await setUp('OFF')
    try {
      const html = await (await fetch(`${setup.portal.url}/`)).text()
      expect(html).not.toContain(setup.stub.origin)
      expect(await csp(`${setup.portal.url}/`)).not.toContain(setup.stub.origin)
    } finally {
      await tearDown(setup)
    }
  })
})

describe('enforcement turned on after the portal last asked', () => {
  it('a refused sign-in re-reads the configuration and hands the page what it needs to retry', async () => {
    const setup = await setUp('OFF')
    try {
      expect(await csp(`${setup.portal.url}/`)).not.toContain(setup.stub.origin)
      setup.service.setState('ENFORCE')
      const form = await new HttpBrowser(setup.portal.url).load()
      const res = await form.submit('/?index', { email: uniqueEmail('captcha-stale'), password: PASSWORD })
      expect(res.status).toBe(400)
      const html = await res.text()
      expect(html).toContain(`${setup.stub.url}?render=${SITE_KEY}`)
      expect(html).toContain('JavaScript')
      expect(await csp(`${setup.portal.url}/`)).toContain(setup.stub.origin)
    } finally {
      await tearDown(setup)
    }
  })
})
