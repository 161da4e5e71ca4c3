import { Agent } from 'undici'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { EMULATOR_API_KEY, emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { sessionCookieFor } from '../support/session-cookie'
import { csrfTokenIn } from '../support/csrf'

/**
 * Every visible value built from input is escaped: script and attribute-breaking payloads put
 * in form fields, query parameters, the path, and account emails that come back from the
 * identity service. The raw payload never appears anywhere in the HTML (markup, attributes, or
 * the inline scripts that carry loader and action data); where the value is shown, it is shown
 * HTML-escaped, once.
 */

const PAYLOADS = {
  script: '<script>alert(1)</script>',
  attribute: '"><img src=x onerror=alert(1)>',
  /** Targets the inline <script> that carries React Router's data. */
  scriptEnd: '</script><script>alert(1)</script>',
}

// The product makes this file's sessions, in the run's shared store (tests/support/session-cookie.ts).
const emu = await vi.hoisted(async () => (await import('../support/emulator-env')).pointAtEmulator())
const admin = emulatorAdmin(emu)
const agent = new Agent({ keepAliveTimeout: 10_000 })
const portal = inject('portal')
let csrf: string

/** How React writes text and attribute values. */
function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#x27;')
}

interface Answer {
  status: number
  location: string | null
  setCookie: string
  html: string
}

/** `path` is sent as written: raw `<`, `>` and `"` reach the server (a URL would encode them). */
async function send(
  method: 'GET' | 'POST',
  path: string,
  options: { cookie?: string; form?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {}
  if (options.cookie) headers.cookie = options.cookie
  if (options.form) headers['content-type'] = 'application/x-www-form-urlencoded'
  const res = await agent.request({
    origin: portal.url,
    path,
    method,
    headers,
    body: options.form ? new URLSearchParams(options.form).toString() : undefined,
  })
  const header = (name: string) => {
    const value = res.headers[name]
    return Array.isArray(value) ? value.join('\n') : (value ?? null)
  }
  return {
    status: res.statusCode,
    location: header('location'),
    setCookie: header('set-cookie') ?? '',
    html: await res.body.text(),
  }
}

function postForm(path: string, fields: Record<string, string>) {
  return send('POST', path, { cookie: `csrf=${csrf}`, form: { csrf, ...fields } })
}

/** The payload is nowhere raw; `shown`, its escaped rendering where the page displays it, is there. */
/**
 * How app/components/address.tsx shows an address: a line may end before '@' and '.' (<wbr>), its
 * last character is kept with the punctuation after it.
 */
function addressMarkup(email: string, after = ''): string {
  const pieces = email.slice(0, -1).split(/(?=[@.])/u).map(escapeHtml).join('<wbr/>')
  return `<span class="address">${pieces}<span class="address-end">${escapeHtml(email.slice(-1))}${after}</span></span>`
}

function expectEscaped(answer: Answer, payload: string, shown: string[] = []) {
  expect(answer.html.length, 'an HTML body').toBeGreaterThan(0)
  expect(answer.html.includes(payload), `raw payload ${payload} in the HTML`).toBe(false)
  for (const fragment of shown) expect(answer.html, 'the escaped value where it is shown').toContain(fragment)
}

/** An account in the emulator under an email that carries the payload (the emulator takes it). */
async function hostileAccount(payload: string): Promise<{ email: string; idToken: string }> {
  const email = `x+${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}${payload}@example.com`
  const res = await fetch(`${emu.origin}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=${EMULATOR_API_KEY}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: 'Hostile-Account-2026', returnSecureToken: true }),
  })
  const body = (await res.json()) as { email?: string; idToken?: string }
  if (!res.ok || body.email !== email || !body.idToken)
    throw new Error(`the emulator refused ${email}: ${JSON.stringify(body)}`)
  return { email, idToken: body.idToken }
}

beforeAll(async () => {
  const token = csrfTokenIn((await send('GET', '/')).html)
  if (!token) throw new Error('no CSRF token on /')
  csrf = token
})

afterAll(async () => {
  await agent.close()
})

describe.each(Object.entries(PAYLOADS))('the %s payload', (_name, payload) => {
  const encoded = encodeURIComponent(payload)

  it('in the email kept in the sign-in form after a failure', async () => {
    const email = `x${payload}@example.com`
    const answer = await postForm('/?index', { email, password: 'whatever-1' })
    expect(answer.status).toBe(400)
    expectEscaped(answer, payload, [`name="email"`, `value="${escapeHtml(email)}"`])
  })

  it('in the email kept in the forgot-password form after a failure', async () => {
    const email = `x${payload}@example.com`
    const answer = await postForm('/forgot-password', { email })
    expect(answer.status).toBe(400)
    expectEscaped(answer, payload, [`value="${escapeHtml(email)}"`])
  })

  it('in the email query parameter of /forgot-password (prefill)', async () => {
    const answer = await send('GET', `/forgot-password?email=${encoded}`)
    expect(answer.status).toBe(200)
    expectEscaped(answer, payload, [`value="${escapeHtml(payload)}"`])
  })

  it('in the email query parameter of / (prefill)', async () => {
    const answer = await send('GET', `/?email=${encoded}`)
    expect(answer.status).toBe(200)
    expectEscaped(answer, payload, [`value="${escapeHtml(payload)}"`])
  })

  it('in the redirect parameter of / (hidden field)', async () => {
    const answer = await send('GET', `/?redirect=${encoded}`)
    expect(answer.status).toBe(200)
    expectEscaped(answer, payload, [`name="redirect" value="${escapeHtml(payload)}"`])
  })

  it('in the redirect parameter of /forgot-password (hidden field and back link)', async () => {
    const answer = await send('GET', `/forgot-password?redirect=${encoded}`)
    expect(answer.status).toBe(200)
    expectEscaped(answer, payload, [`name="redirect" value="${escapeHtml(payload)}"`])
  })

  it('in the redirect parameter of /new-password (the link back to sign-in)', async () => {
    const answer = await send('GET', `/new-password?redirect=${encoded}`)
    expect(answer.status).toBe(400)
    expectEscaped(answer, payload)
  })

  it('in the path of the 404 page, sent raw', async () => {
    // A request target may carry < > " raw, not spaces: the attribute payload travels encoded.
    const path = payload.includes(' ') ? `/${encoded}` : `/${payload}`
    const answer = await send('GET', path)
    expect(answer.status).toBe(404)
    expectEscaped(answer, payload)
    // The page shows the path it could not find (encoded by the URL parser, then escaped).
    expect(answer.html).toContain('Page introuvable <code class="error-path">/')
  })

  it('in the query of the 404 page, raw and encoded', async () => {
    for (const query of [`x=${payload.replace(/ /g, '/')}`, `x=${encoded}`]) {
      const answer = await send('GET', `/nope?${query}`)
      expect(answer.status).toBe(404)
      expectEscaped(answer, payload)
      expectEscaped(answer, payload.replace(/ /g, '/'))
      expect(answer.html).toContain('Page introuvable <code class="error-path">/nope?x=')
    }
  })

  it('in the address kept by the language switch (returnTo) on any page', async () => {
    const answer = await send('GET', `/forgot-password?x=${payload.replace(/ /g, '/')}`)
    expect(answer.status).toBe(200)
    expect(answer.html).toContain('name="returnTo"')
    expectEscaped(answer, payload.replace(/ /g, '/'))
  })

  it('in the signed-in page, from the account email the identity service holds', async () => {
    const { email, idToken } = await hostileAccount(payload)
    const answer = await send('GET', '/', { cookie: await sessionCookieFor(idToken) })
    expect(answer.status).toBe(200)
    expect(answer.html).toContain('Votre session est ouverte')
    expectEscaped(answer, payload, [addressMarkup(email)])
  })

  it('in the new-password subtitle and username field, from the account email of the reset code', async () => {
    const { email } = await hostileAccount(payload)
    const sent = await fetch(
      `${emu.origin}/identitytoolkit.googleapis.com/v1/accounts:sendOobCode?key=${EMULATOR_API_KEY}`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ requestType: 'PASSWORD_RESET', email }),
      },
    )
    expect(sent.ok, await sent.clone().text()).toBe(true)
    const code = (await admin.oobCodes()).filter((c) => c.email === email && c.requestType === 'PASSWORD_RESET').at(-1)
    expect(code, 'the emulator recorded the reset code').toBeDefined()

    // The emailed link's first hop moves the code into a cookie.
    const first = await send('GET', `/new-password?oobCode=${encodeURIComponent(code!.oobCode)}`)
    expect(first.status).toBe(302)
    const resetCookie = /reset_code=[^;]+/.exec(first.setCookie)?.[0]
    expect(resetCookie).toBeDefined()
    // The code is sealed to this browser: its CSRF cookie, minted by the same answer (ADR 017).
    const csrfCookie = /csrf=[^;]+/.exec(first.setCookie)?.[0]
    const answer = await send('GET', first.location!, { cookie: `${csrfCookie}; ${resetCookie}` })
    expect(answer.status).toBe(200)
    expectEscaped(answer, payload, [
      `Choisissez un nouveau mot de passe pour ${addressMarkup(email, '.')}`,
      `value="${escapeHtml(email)}"`,
    ])
  })

  it('in the links of the email action guard (/action)', async () => {
    const answer = await send('GET', `/action?mode=resetPassword&oobCode=${encoded}&apiKey=k&continueUrl=${encoded}`)
    expect(answer.status).toBe(302)
    expect(answer.location, 'the Location header is encoded').toMatch(/^[\x21-\x7e]+$/)
    expect(answer.location).not.toContain(payload)
    const invalid = await send('GET', `/action?mode=${encoded}&oobCode=${encoded}`)
    expect(invalid.status).toBe(400)
    expectEscaped(invalid, payload)
  })
})

it('a fresh email address shows up escaped too when it holds no payload (control)', async () => {
  // The helpers above look for the escaped form: make sure they find an ordinary one.
  const email = uniqueEmail('escape-control')
  const answer = await send('GET', `/?email=${encodeURIComponent(email)}`)
  expectEscaped(answer, '<never-present>', [`value="${email}"`])
})
