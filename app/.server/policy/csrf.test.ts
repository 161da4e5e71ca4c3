import { afterEach, describe, expect, it, vi } from 'vitest'
import type * as configModule from '~/.server/config'
import type { Config } from '~/.server/config'
import { CSRF_FIELD } from '~/lib/form-fields'
import { COOKIES, cookieName } from '~/.server/cookies'
import { issueCsrf, verifyCsrf } from './csrf'

const overrides = vi.hoisted(() => ({ value: {} as Partial<Config> }))
vi.mock('~/.server/config', async (importOriginal) => {
  const actual = await importOriginal<typeof configModule>()
  return { ...actual, getConfig: () => ({ ...actual.getConfig(), ...overrides.value }) }
})

const ORIGIN = 'http://localhost:3000'
const OLD_SECRET = 'old-secret-old-secret-old-secret-0000'
const NEW_SECRET = 'new-secret-new-secret-new-secret-1111'

afterEach(() => {
  overrides.value = {}
})

function post(headers: Record<string, string>): Request {
  return new Request(`${ORIGIN}/`, { method: 'POST', headers })
}

function form(fields: Record<string, string>): FormData {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.set(name, value)
  return data
}

/** A token as a browser would hold it: the loader's Set-Cookie value, sent back as a Cookie. */
function mint(): string {
  const { token, setCookie } = issueCsrf(new Request(`${ORIGIN}/`))
  expect(setCookie).toContain(`${cookieName(COOKIES.csrf)}=${token}`)
  return token
}

/** As guardForm calls it: the Origin header reaches it through the load context. */
function verify(request: Request, body: FormData) {
  return verifyCsrf(request, body, { publicOrigin: ORIGIN, origin: request.headers.get('Origin') })
}

function submit(token: string, field = token, headers: Record<string, string> = { Origin: ORIGIN }) {
  const cookie = `other=1; ${cookieName(COOKIES.csrf)}=${token}`
  return verify(post({ ...headers, Cookie: cookie }), form({ [CSRF_FIELD]: field }))
}

describe('issueCsrf', () => {
  it('mints a random.hmac token in an HttpOnly, SameSite=Lax, host-only cookie', () => {
    const { token, setCookie } = issueCsrf(new Request(`${ORIGIN}/`))
    expect(token).toMatch(/^[\w-]{43}\.[\w-]{43}$/)
    expect(setCookie).toMatch(/^csrf=[\w.-]+; Path=\/; SameSite=Lax; HttpOnly$/)
    expect(issueCsrf(new Request(`${ORIGIN}/`)).token).not.toBe(token)
  })

  it('reuses a valid token from the cookie, and replaces a forged one', () => {
    const token = mint()
    expect(issueCsrf(post({ Cookie: `csrf=${token}` }))).toEqual({ token, setCookie: null })
    const forged = issueCsrf(post({ Cookie: `csrf=${token.split('.')[0]}.AAAA` }))
    expect(forged.token).not.toBe(token)
    expect(forged.setCookie).not.toBeNull()
  })

  it('uses the __Host- prefix and Secure over https', () => {
    overrides.value = { publicOrigin: 'https://login.example.com' }
    expect(cookieName(COOKIES.csrf)).toBe('__Host-csrf')
    expect(issueCsrf(new Request('https://login.example.com/')).setCookie).toMatch(/^__Host-csrf=.*; Secure$/)
  })
})

describe('verifyCsrf', () => {
  it('accepts the round trip', () => {
    expect(submit(mint())).toEqual({ ok: true })
  })

  it('accepts a same-origin post without an Origin header (older browsers) when the token is valid', () => {
    expect(submit(mint(), undefined, {})).toEqual({ ok: true })
    expect(submit(mint(), undefined, { 'Sec-Fetch-Site': 'same-origin' })).toEqual({ ok: true })
  })

  it('refuses a tampered HMAC even when field and cookie agree', () => {
    const [random, mac] = mint().split('.') as [string, string]
    const tampered = `${random}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`
    expect(submit(tampered)).toEqual({ ok: false, reason: 'token-mismatch' })
    expect(submit(`${random}.`)).toEqual({ ok: false, reason: 'token-mismatch' })
    expect(submit('garbage')).toEqual({ ok: false, reason: 'token-mismatch' })
  })

  it('still accepts a token signed by the previous secret after rotation, but not after retirement', () => {
    overrides.value = { sessionSecrets: [OLD_SECRET] }
    const token = mint()
    overrides.value = { sessionSecrets: [NEW_SECRET, OLD_SECRET] }
    expect(submit(token)).toEqual({ ok: true })
    expect(issueCsrf(post({ Cookie: `csrf=${token}` })).setCookie).toBeNull()
    overrides.value = { sessionSecrets: [NEW_SECRET] }
    expect(submit(token)).toEqual({ ok: false, reason: 'token-mismatch' })
  })

  it('refuses a field that differs from the cookie, or no field', () => {
    expect(submit(mint(), mint())).toEqual({ ok: false, reason: 'token-mismatch' })
    expect(verify(post({ Cookie: `csrf=${mint()}` }), form({}))).toEqual({
      ok: false,
      reason: 'token-mismatch',
    })
  })

  it('tells a missing cookie apart (third-party cookies blocked)', () => {
    expect(verify(post({ Origin: ORIGIN }), form({ [CSRF_FIELD]: mint() }))).toEqual({
      ok: false,
      reason: 'cookie-missing',
    })
  })

  it('refuses another origin, Origin: null and cross-site fetches, even with a valid token', () => {
    const token = mint()
    expect(submit(token, token, { Origin: 'https://evil.example' })).toEqual({ ok: false, reason: 'bad-origin' })
    expect(submit(token, token, { Origin: 'http://localhost:3000.evil.example' })).toEqual({
      ok: false,
      reason: 'bad-origin',
    })
    expect(submit(token, token, { Origin: 'null' })).toEqual({ ok: false, reason: 'bad-origin' })
    expect(submit(token, token, { Origin: 'null', 'Sec-Fetch-Site': 'cross-site' })).toEqual({ ok: false, reason: 'cross-site' })
    expect(submit(token, token, { Origin: 'null', 'Sec-Fetch-Site': 'same-site' })).toEqual({ ok: false, reason: 'bad-origin' })
  })

  it('accepts Origin: null from our own no-referrer pages (Sec-Fetch-Site: same-origin)', () => {
    const token = mint()
    expect(submit(token, token, { Origin: 'null', 'Sec-Fetch-Site': 'same-origin' })).toEqual({ ok: true })
    expect(submit(token, token, { 'Sec-Fetch-Site': 'cross-site' })).toEqual({ ok: false, reason: 'cross-site' })
  })
})
