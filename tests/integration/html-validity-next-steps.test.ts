import { afterAll, beforeAll, expect, inject, it } from 'vitest'
import { EMULATOR_API_KEY, emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { HttpBrowser } from '../support/http-browser'
import { htmlErrors } from '../support/html-checker'
import { startMfaIdentity, type MfaIdentity } from '../support/mfa-identity'
import { ownPortal } from '../support/portal'
import { startSmsFaults, type SmsFaults } from '../support/sms-faults'

/**
 * The states that say what works next, as a browser without JavaScript receives them, in both
 * languages, through the Nu Html Checker: every kind of dead emailed link, a kind of second factor
 * the project does not offer, the code step when no SMS went and under an SMS limit, sign-in's limit
 * with its time, a blocked check's script, and a page in a frame whose cookies are blocked.
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Valid-Next-Steps-2026'
let faults: SmsFaults
let loop: MfaIdentity
beforeAll(async () => {
  faults = await startSmsFaults(emulator)
  loop = await startMfaIdentity(emulator.origin)
})
afterAll(async () => {
  await faults?.close()
  await loop?.close()
})
const limits = { RATE_LIMIT_MFA_SMS_PER_PHONE: '1', RATE_LIMIT_SIGNIN_PER_EMAIL_IP: '1', FLAG_EMAIL_LINK_SIGN_IN: 'true' }
const portal = ownPortal(() => ({ FIREBASE_AUTH_EMULATOR_HOST: faults.host, ...limits }))
/** Enforces reCAPTCHA for SMS (tests/support/mfa-identity.ts). */
const captchaPortal = ownPortal(() => ({ FIREBASE_AUTH_EMULATOR_HOST: loop.host }))

async function pageStates(language: 'fr' | 'en'): Promise<Map<string, string>> {
  const pages = new Map<string, string>()
  const browser = new HttpBrowser(portal.url)
  browser.plant('i18n_redirected', language)
  const keep = async (name: string, res: Response, status: number) => {
    expect(res.status, name).toBe(status)
    pages.set(`${language}-${name}`, await res.text())
  }
  for (const mode of ['verifyEmail', 'verifyAndChangeEmail', 'signIn', 'revertSecondFactorAddition', 'recoverEmail']) {
    const first = await browser.get(`/action?mode=${mode}&oobCode=dead&apiKey=${EMULATOR_API_KEY}`)
    expect(first.status, mode).toBe(302)
    await keep(`dead-link-${mode}`, await browser.get(first.headers.get('location')!), 400)
  }

  const email = uniqueEmail(`html-next-${language}`)
  const { localId } = await admin.createUser(email, PASSWORD)
  expect((await browser.post('/?index', { email, password: PASSWORD })).status).toBe(303)
  await keep('totp-not-offered', await browser.get('/account/second-factor/totp'), 404)
  await keep('sign-in-framed', await fetch(`${portal.url}/`, { headers: { 'Sec-Fetch-Dest': 'iframe', 'Sec-Fetch-Site': 'cross-site', 'Accept-Language': language } }), 200)

  const other = uniqueEmail(`html-limit-${language}`)
  await admin.createUser(other, PASSWORD)
  const stranger = new HttpBrowser(portal.url)
  stranger.plant('i18n_redirected', language)
  expect((await stranger.post('/?index', { email: other, password: 'Not-The-Password-1' })).status).toBe(400)
  await keep('sign-in-limit', await stranger.post('/?index', { email: other, password: 'Not-The-Password-1' }), 429)

  const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`
  await admin.enrollSms(localId, [{ phoneNumber: phone }])
  const step = new HttpBrowser(portal.url)
  step.plant('i18n_redirected', language)
  faults.failNext(1)
  expect((await step.post('/?index', { email, password: PASSWORD })).status).toBe(303)
  await keep('code-step-not-sent', await step.get('/second-factor'), 200)
  expect((await step.post('/second-factor', { intent: 'resend' }, '/second-factor')).status).toBe(303)
  const again = new HttpBrowser(portal.url)
  again.plant('i18n_redirected', language)
  expect((await again.post('/?index', { email, password: PASSWORD })).status).toBe(303)
  await keep('code-step-sms-limit', await again.get('/second-factor'), 200)

  // The check's script could not load: the page posted an empty token.
  const captcha = uniqueEmail(`captcha-html-${language}`)
  await admin.createUser(captcha, PASSWORD)
  const blocked = new HttpBrowser(captchaPortal.url)
  blocked.plant('i18n_redirected', language)
  expect((await blocked.post('/?index', { email: captcha, password: PASSWORD })).status).toBe(303)
  const sent = await blocked.post('/second-factor', { intent: 'resend', 'g-recaptcha-response': '' }, '/second-factor')
  expect(sent.status).toBe(303)
  await keep('code-step-check-failed', await blocked.get('/second-factor'), 200)
  return pages
}

it('every state that says what works next is valid HTML in both languages (Nu Html Checker)', { timeout: 120_000 }, async () => {
  const pages = new Map<string, string>()
  for (const language of ['fr', 'en'] as const) for (const [name, html] of await pageStates(language)) pages.set(name, html)
  expect(pages.size).toBe(22)
  for (const [name, html] of pages) {
    if (name.includes('limit')) expect(html, name).toMatch(/<time date[tT]ime="[^"]+">[^<]+ UTC<\/time>/)
  }
  // Each state is the one its name says.
  const says = {
    'en-dead-link-signIn': 'Ask for a new sign-in link',
    'en-totp-not-offered': 'does not offer authenticator apps',
    'en-sign-in-framed': 'Please enable third-party cookies',
    'en-code-step-not-sent': '>Resend code</button>',
    'en-code-step-check-failed': 'could not be loaded',
  }
  for (const [name, text] of Object.entries(says)) expect(pages.get(name), name).toContain(text)
  expect(await htmlErrors(pages)).toEqual([])
})
