import { describe, expect, inject, it } from 'vitest'
import { HttpBrowser } from '../support/http-browser'
import { ownPortal } from '../support/portal'
import { EMULATOR_API_KEY, emulatorAdmin, uniqueEmail } from '../../dev/emulator'

/**
 * Cookies set by someone else. An attacker who can plant a cookie in the
 * victim's browser (a sibling subdomain, or the network over http) replays the short-lived cookie
 * of their own pending sign-in, emailed code or reset code. Each is sealed to the browser that
 * started its flow (ADR 017), so in any other browser it is worth nothing: no session, no password
 * change. Over https every cookie with authority carries `__Host-`, which nobody else can set.
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Attacker-Pass-2026'
const api = `${emulator.origin}/identitytoolkit.googleapis.com/v1`

/** Every way in turned on, and the per-address limits out of the way of one client's many flows. */
const EVERY_FLOW = {
  FLAG_SSO: 'true',
  FLAG_EMAIL_LINK_SIGN_IN: 'true',
  SSO_PROVIDER_ID: 'google.com',
  RATE_LIMIT_RESET_PER_IP: '10000',
  RATE_LIMIT_NEW_PASSWORD_PER_IP: '10000',
}
const portal = ownPortal(EVERY_FLOW)

const isSession = (name: string) => name === 'session' || name === '__Host-session'

/** The fake provider's answer for a pending sign-in (its iOS deep-link format, see app/.server/auth/sso.ts). */
function providerAnswer(refresh: string, email: string): string {
  const url = new URL(refresh.replace(/^0;url=/, ''))
  const claims = { sub: `${Date.now()}${Math.random()}`.replace('.', ''), email, email_verified: true }
  const handler = `${emulator.origin}/emulator/auth/handler?providerId=google.com&id_token=${encodeURIComponent(JSON.stringify(claims))}`
  const callback = `${emulator.origin}/__/auth/callback?authType=signInViaRedirect&link=${encodeURIComponent(handler)}&eventId=${url.searchParams.get('eventId')}`
  return `${url.searchParams.get('ibi')}://google/link?deep_link_id=${encodeURIComponent(callback)}`
}

async function passwordWorks(email: string, password: string): Promise<boolean> {
  const res = await fetch(`${api}/accounts:signInWithPassword?key=${EMULATOR_API_KEY}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  return res.ok
}

describe('a short-lived cookie planted in another browser', () => {
  it('sso_state: the attacker’s pending single sign-on makes no session in the victim’s browser', async () => {
    const attacker = new HttpBrowser(portal.url)
    const start = await attacker.post('/sso/start', {})
    expect(start.status).toBe(200)
    const answer = providerAnswer(start.headers.get('refresh') ?? '', uniqueEmail('sso-attacker'))

    const victim = new HttpBrowser(portal.url)
    await victim.token()
    victim.plant('sso_state', attacker.cookie('sso_state')!)
    const planted = await victim.get(answer)
    expect(planted.status).toBe(303)
    expect(planted.headers.get('location')).toBe('/?ssoError=cancelled')
    expect([...victim.jar.keys()].filter(isSession)).toEqual([])

    // A fresh browser holding nothing but the planted state fares no better.
    const bare = new HttpBrowser(portal.url)
    bare.plant('sso_state', attacker.cookie('sso_state')!)
    expect((await bare.get(answer)).headers.get('location')).toBe('/?ssoError=cancelled')
    expect([...bare.jar.keys()].filter(isSession)).toEqual([])

    // The same answer in the browser that started the sign-in does sign in: the refusal above is the binding.
    const own = await attacker.get(answer)
    expect(own.headers.get('location')).toBe('/')
    expect([...attacker.jar.keys()].filter(isSession)).toHaveLength(1)
  })

  it('sso_state: a cross-site form_post is posted again from our page, and only then checked', async () => {
    const browser = new HttpBrowser(portal.url)
    await browser.post('/sso/start', {})
    // The provider's cross-site POST: the browser withholds the Lax CSRF cookie the state is bound to.
    const res = await fetch(`${portal.url}/sso/callback`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        Cookie: `sso_state=${browser.cookie('sso_state')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
        'Sec-Fetch-Site': 'cross-site',
      },
      body: 'code=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E&state=s',
    })
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toContain('<form method="post" action="/sso/callback?portal_repost=1">')
    expect(html).toContain('<input type="hidden" name="code" value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">')
    expect(html).not.toContain('<script>alert')
    expect(res.headers.get('set-cookie')).toBeNull()
  })

  it('email_link and action_code: the attacker’s sign-in link signs nobody in from another browser', async () => {
    const email = uniqueEmail('link-attacker')
    await admin.createUser(email, PASSWORD)
    const attacker = new HttpBrowser(portal.url)
    const sent = await attacker.post('/?index', { email, intent: 'email-link' })
    expect(sent.status).toBe(303)
    const code = (await admin.emailed(email, 'EMAIL_SIGNIN')).oobCode
    const opened = await attacker.get(`/action?mode=signIn&oobCode=${encodeURIComponent(code)}&apiKey=k`)
    expect(opened.status).toBe(302)

    const victim = new HttpBrowser(portal.url)
    await victim.token('/action')
    victim.plant('action_code', attacker.cookie('action_code')!)
    victim.plant('email_link', attacker.cookie('email_link')!)
    const page = await victim.get('/action')
    expect(page.status).toBe(400)
    const click = await victim.post('/action', { email: '' }, '/action')
    expect(click.status).toBe(400)
    expect([...victim.jar.keys()].filter(isSession)).toEqual([])

    // In the attacker's own browser the same cookies still work: one click signs in.
    const own = await attacker.post('/action', { email: '' }, '/action')
    expect(own.status).toBe(303)
    expect([...attacker.jar.keys()].filter(isSession)).toHaveLength(1)
  })

  it('reset_code: the victim cannot be made to set the attacker’s password', async () => {
    const email = uniqueEmail('reset-attacker')
    await admin.createUser(email, PASSWORD)
    const attacker = new HttpBrowser(portal.url)
    expect((await attacker.post('/forgot-password', { email }, '/forgot-password')).status).toBeLessThan(400)
    const code = (await admin.emailed(email, 'PASSWORD_RESET')).oobCode
    expect((await attacker.get(`/new-password?oobCode=${encodeURIComponent(code)}`)).status).toBe(302)

    const victim = new HttpBrowser(portal.url)
    await victim.token('/forgot-password')
    victim.plant('reset_code', attacker.cookie('reset_code')!)
    expect((await victim.get('/new-password')).status).toBe(400)
    const chosen = 'Victim-Chosen-Pass-2026'
    const submit = await victim.post('/new-password', { password: chosen, confirmation: chosen }, '/forgot-password')
    expect(submit.status).toBe(400)
    expect(await passwordWorks(email, chosen)).toBe(false)
    expect(await passwordWorks(email, PASSWORD)).toBe(true)

    // The attacker's own browser can still use its code: the refusal above is the binding.
    expect((await attacker.get('/new-password')).status).toBe(200)
  })
})

describe('the CSRF token', () => {
  it('is a new one after every sign-in, and the old one is refused', async () => {
    const email = uniqueEmail('rotate')
    await admin.createUser(email, PASSWORD)
    const browser = new HttpBrowser(portal.url)
    const before = await browser.token()
    const signIn = await browser.post('/?index', { email, password: PASSWORD })
    expect(signIn.status).toBe(303)
    const after = browser.cookie('csrf')
    expect(after).toBeDefined()
    expect(after).not.toBe(before)
    expect(await browser.token()).toBe(after)

    // A form rendered before the sign-in (its token seen by someone else) no longer posts.
    const stale = await fetch(`${portal.url}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        Cookie: [...browser.jar].map(([n, v]) => `${n}=${v}`).join('; '),
        Origin: portal.url,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ csrf: before }),
    })
    expect(stale.status).toBe(403)
  })
})

describe('over https', () => {
  const PUBLIC_URL = 'https://login.example.test'
  const secure = ownPortal({ ...EVERY_FLOW, PUBLIC_URL })

  it('every cookie with authority carries __Host- (the language and consent cookies aside)', async () => {
    const browser = new HttpBrowser(secure.url, { origin: PUBLIC_URL })
    const email = uniqueEmail('host-prefix')
    await admin.createUser(email, PASSWORD)

    expect((await browser.post('/sso/start', {})).status).toBe(200)
    expect((await browser.post('/?index', { email, intent: 'email-link' })).status).toBe(303)
    const signIn = await browser.post('/?index', { email, password: PASSWORD })
    expect(signIn.status).toBe(303)
    expect((await browser.post('/forgot-password', { email }, '/forgot-password')).status).toBeLessThan(400)
    const reset = (await admin.emailed(email, 'PASSWORD_RESET')).oobCode
    expect((await browser.get(`/new-password?oobCode=${encodeURIComponent(reset)}`)).status).toBe(302)
    const link = (await admin.emailed(email, 'EMAIL_SIGNIN')).oobCode
    expect((await browser.get(`/action?mode=signIn&oobCode=${encodeURIComponent(link)}&apiKey=k`)).status).toBe(302)
    expect((await browser.post('/language', { locale: 'en' })).status).toBe(303)
    expect((await browser.post('/consent', {})).status).toBe(303)
    expect((await browser.post('/logout', {}, '/logout')).status).toBeLessThan(400)

    const names = new Set(browser.setCookies.map((c) => c.split('=', 1)[0]!))
    for (const expected of ['__Host-csrf', '__Host-session', '__Host-sso_state', '__Host-email_link', '__Host-reset_code', '__Host-action_code']) {
      expect(names, `${expected} was set`).toContain(expected)
    }
    const exempt = new Set(['i18n_redirected', 'cookie_consent'])
    expect([...names].filter((n) => !n.startsWith('__Host-') && !exempt.has(n))).toEqual([])
    for (const header of browser.setCookies.filter((c) => c.startsWith('__Host-'))) {
      expect(header).toMatch(/; Path=\/(;|$)/)
      expect(header).toMatch(/; Secure(;|$)/)
      expect(header).not.toMatch(/; Domain=/i)
    }
  })
})
