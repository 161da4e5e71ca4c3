import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { HttpBrowser } from '../support/http-browser'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { getFreePort } from '../../dev/ports'
import { startPortal, type Portal } from '../../dev/portal'
import { csrfTokenIn } from '../support/csrf'

/**
 * Page shells (ADR 021): an anonymous, query-less GET of a form page is served from a shell
 * rendered once, with the CSP nonce and the CSRF token filled in per request. The filled shell
 * must be byte for byte what a fresh render gives, with the same headers; anything personal is
 * always rendered afresh.
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)

interface Started {
  portal: Portal
  metrics: string
}

async function start(env: Record<string, string> = {}): Promise<Started> {
  const metricsPort = await getFreePort()
  const portal = await startPortal({
    FIREBASE_AUTH_EMULATOR_HOST: emulator.host,
    FIREBASE_PROJECT_ID: emulator.projectId,
    METRICS_PORT: String(metricsPort),
    ...env,
  })
  return { portal, metrics: `http://127.0.0.1:${metricsPort}/metrics` }
}

async function hits(started: Started): Promise<number> {
  const text = await (await fetch(started.metrics)).text()
  return Number(/^portal_page_shell_total\{outcome="hit"\} (\d+)/m.exec(text)?.[1] ?? 0)
}

interface Answer {
  status: number
  body: string
  headers: Headers
  nonce: string
  token: string
}

async function get(url: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(url, { headers, redirect: 'manual' })
  const body = await res.text()
  const nonce = /'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1] ?? ''
  const token = csrfTokenIn(body) ?? ''
  return { status: res.status, body, headers: res.headers, nonce, token }
}

/** What must be equal between two answers for the same key: the body and headers with their holes named. */
function comparable(answer: Answer) {
  const hollow = (text: string) => text.replaceAll(answer.nonce, 'NONCE').replaceAll(answer.token, 'TOKEN')
  const perRequest = new Set(['date', 'x-request-id', 'set-cookie', 'content-length', 'transfer-encoding', 'connection', 'keep-alive'])
  const headers = [...answer.headers].filter(([name]) => !perRequest.has(name)).map(([name, value]) => `${name}: ${hollow(value)}`)
  return { body: hollow(answer.body), headers: headers.sort() }
}

const cases: Array<{ name: string; headers: Record<string, string> }> = [
  { name: 'fr (Accept-Language)', headers: { 'Accept-Language': 'fr-FR,fr;q=0.9' } },
  { name: 'en (Accept-Language)', headers: { 'Accept-Language': 'en-US,en;q=0.9' } },
  { name: 'en (cookie), notice accepted', headers: { Cookie: 'i18n_redirected=en; cookie_consent=1' } },
  { name: 'fr, notice accepted', headers: { Cookie: 'cookie_consent=1' } },
  { name: 'fr, in another site’s frame', headers: { 'Sec-Fetch-Dest': 'iframe', 'Sec-Fetch-Site': 'cross-site' } },
]

describe.each<{ flags: string; env: Record<string, string> }>([
  { flags: 'flags off', env: {} },
  { flags: 'single sign-on and email links on', env: { FLAG_SSO: 'true', SSO_PROVIDER_ID: 'google.com', FLAG_EMAIL_LINK_SIGN_IN: 'true' } },
])('with $flags', ({ env }) => {
  let started: Started
  beforeAll(async () => {
    started = await start(env)
  })
  afterAll(async () => {
    await started?.portal.stop()
  })

  for (const path of ['/', '/forgot-password']) {
    for (const c of cases) {
      it(`${path}, ${c.name}: the filled shell is a fresh render, byte for byte`, async () => {
        const url = `${started.portal.url}${path}`
        const fresh = await get(url, c.headers)
        const again = await get(url, c.headers)
        const before = await hits(started)
        const served = await get(url, c.headers)
        expect(await hits(started), 'the third answer came from the shell').toBe(before + 1)

        for (const answer of [fresh, again, served]) {
          expect(answer.status).toBe(200)
          expect(answer.nonce).not.toBe('')
          expect(answer.token).not.toBe('')
          expect(answer.body).toContain(`nonce="${answer.nonce}"`)
          // A first visit gets a new CSRF cookie, holding the very token of its page.
          expect(answer.headers.get('set-cookie')).toMatch(new RegExp(`^csrf=${answer.token.replace(/[.]/g, '\\.')};`))
        }
        expect(served.nonce).not.toBe(fresh.nonce)
        expect(served.token).not.toBe(fresh.token)
        expect(comparable(served)).toEqual(comparable(fresh))

        // A visitor who has a CSRF cookie keeps its token and gets no new cookie, from the shell too.
        const cookie = `csrf=${served.token}${c.headers.Cookie ? `; ${c.headers.Cookie}` : ''}`
        const returning = await get(url, { ...c.headers, Cookie: cookie })
        expect(await hits(started)).toBe(before + 2)
        expect(returning.token).toBe(served.token)
        expect(returning.headers.get('set-cookie')).toBeNull()
        expect(comparable(returning)).toEqual(comparable(fresh))
      })
    }
  }
})

describe('never from a shell', () => {
  let started: Started
  beforeAll(async () => {
    started = await start()
    // Warm the shell of the French sign-in page.
    for (let i = 0; i < 3; i++) await get(`${started.portal.url}/`, {})
  })
  afterAll(async () => {
    await started?.portal.stop()
  })

  it('a frame whose cookies are blocked and an open page never get each other’s page (ADR 073)', async () => {
    const framed = await get(`${started.portal.url}/`, { 'Sec-Fetch-Dest': 'iframe', 'Sec-Fetch-Site': 'cross-site' })
    expect(framed.body).toContain('Veuillez activer les cookies tiers dans votre navigateur pour continuer.')
    for (let i = 0; i < 3; i++) await get(`${started.portal.url}/`, { 'Sec-Fetch-Dest': 'iframe', 'Sec-Fetch-Site': 'cross-site' })
    expect((await get(`${started.portal.url}/`, {})).body).not.toContain('cookies tiers')
  })

  it('a query string, a session, another cookie or a form post is rendered afresh', async () => {
    const url = started.portal.url
    const warm = await hits(started)
    await get(`${url}/`, {})
    expect(await hits(started), 'the shell is warm').toBe(warm + 1)
    /** Runs one request and checks that it did not come from a shell. */
    async function afresh<T>(request: () => Promise<T>): Promise<T> {
      const before = await hits(started)
      const result = await request()
      expect(await hits(started)).toBe(before)
      return result
    }

    const query = await afresh(() => get(`${url}/?redirect=%2Fsomewhere`, {}))
    expect(query.body).toContain('value="/somewhere"')

    const email = uniqueEmail('shell')
    await admin.createUser(email, 'Shell-Pass-2026')
    const browser = new HttpBrowser(url)
    expect((await browser.post('/?index', { email, password: 'Shell-Pass-2026' })).status).toBe(303)
    const signedIn = await afresh(() => browser.get('/'))
    expect(await signedIn.text()).toContain(email)

    const planted = await afresh(() => get(`${url}/`, { Cookie: 'sso_state=abc' }))
    expect(planted.status).toBe(200)

    const other = new HttpBrowser(url)
    const csrf = await other.token()
    const post = await afresh(() =>
      fetch(`${url}/?index`, {
        method: 'POST',
        headers: { Cookie: `csrf=${other.cookie('csrf')}`, Origin: url, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, email, password: 'Wrong-Pass-2026' }),
      }),
    )
    expect(post.status).toBe(400)
    expect(await post.text()).toContain(`value="${email}"`)
  })
})
