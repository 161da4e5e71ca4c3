import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { startPortal, type Portal } from '../../dev/portal'
import { HttpBrowser } from '../support/http-browser'

/**
 * `localhost` is in every Firebase project's authorizedDomains (the
 * emulator's too). Outside PLATFORM local/test/development it must not receive a redirect after
 * sign-in, the single-sign-on callback (`authDomain`), nor stand in CSP form-action, unless
 * REDIRECT_ALLOWED_ORIGINS names it. Each case is checked against PLATFORM=test first, where
 * localhost is accepted, so that a refusal in production means the rule and not a broken set-up.
 */

const emu = inject('emulator')
const LOOPBACK = 'http://localhost:4444'
const PASSWORD = 'Right-password-1'

function start(env: Record<string, string>): Promise<Portal> {
  return startPortal({
    FIREBASE_AUTH_EMULATOR_HOST: emu.host,
    FIREBASE_PROJECT_ID: emu.projectId,
    FLAG_SSO: 'true',
    SSO_PROVIDER_ID: 'oidc.loopback-test',
    ...env,
  })
}

const PRODUCTION = { PLATFORM: 'production', SESSION_SECRET: 'a-production-secret-of-at-least-32-characters' }

let email: string
const portals: Record<'test' | 'production' | 'productionNamed', Portal | undefined> = {
  test: undefined,
  production: undefined,
  productionNamed: undefined,
}

beforeAll(async () => {
  email = uniqueEmail('loopback')
  await emulatorAdmin(emu).createUser(email, PASSWORD)
  const [test, production, productionNamed] = await Promise.all([
    start({ PLATFORM: 'test' }),
    start(PRODUCTION),
    start({ ...PRODUCTION, REDIRECT_ALLOWED_ORIGINS: LOOPBACK }),
  ])
  Object.assign(portals, { test, production, productionNamed })
})
afterAll(() => Promise.all(Object.values(portals).map((p) => p?.stop())))

/** A password sign-in with `?redirect=`: where it lands (the 303's Location), or its refusal. */
async function signIn(portal: Portal, redirect: string) {
  const query = `?redirect=${encodeURIComponent(redirect)}`
  const form = await new HttpBrowser(portal.url, { headers: { 'Accept-Language': 'en' } }).load(`/${query}`)
  const res = await form.submit(`/?index`, { email, password: PASSWORD, redirect })
  return {
    status: res.status,
    location: res.headers.get('location'),
    session: res.headers.getSetCookie().some((c) => c.startsWith('session=') || c.includes('session=ey')),
    body: await res.text(),
  }
}

async function signInRedirect(portal: Portal, redirect: string): Promise<string | null> {
  const answer = await signIn(portal, redirect)
  expect(answer.status).toBe(303)
  return answer.location
}

/** Refused: the sign-in page again with 'Invalid redirect URL', no session, no redirect. */
async function expectRefused(portal: Portal, redirect: string) {
  const answer = await signIn(portal, redirect)
  expect(answer.status, redirect).toBe(400)
  expect(answer.location, redirect).toBeNull()
  expect(answer.session, redirect).toBe(false)
  expect(answer.body, redirect).toContain('Invalid redirect URL')
}

/** The callback URL the single-sign-on start sends the provider (the emulator's `ibi`). */
async function ssoCallback(portal: Portal, authDomain: string): Promise<string> {
  const form = await new HttpBrowser(portal.url).load(`/?authDomain=${encodeURIComponent(authDomain)}`)
  const res = await form.submit('/sso/start', { authDomain })
  expect(res.status).toBe(200)
  const refresh = res.headers.get('refresh') ?? ''
  const authUri = new URL(refresh.replace(/^0;url=/, ''))
  return authUri.searchParams.get('ibi') ?? ''
}

async function formAction(portal: Portal): Promise<string> {
  // The first page view starts the authorizedDomains read; the second response carries its result.
  await (await fetch(`${portal.url}/`)).arrayBuffer()
  await new Promise((r) => setTimeout(r, 200))
  const csp = (await fetch(`${portal.url}/`)).headers.get('content-security-policy') ?? ''
  return csp.split(';').find((d) => d.trim().startsWith('form-action')) ?? ''
}

describe('PLATFORM=test (control: the emulator lists localhost)', () => {
  it('follows a localhost redirect, uses authDomain=localhost:4444, lists localhost in form-action', async () => {
    const portal = portals.test!
    expect(await signInRedirect(portal, `${LOOPBACK}/x`)).toBe(`${LOOPBACK}/x`)
    expect(await ssoCallback(portal, 'localhost:4444')).toContain('//localhost:4444/sso/callback')
    expect(await formAction(portal)).toContain('localhost:*')
  })
})

describe('PLATFORM=production', () => {
  it('refuses a localhost redirect at sign-in (Invalid redirect URL), and still signs in without one', async () => {
    const portal = portals.production!
    for (const target of [`${LOOPBACK}/x`, 'http://127.0.0.1/x', 'http://[::1]/x', 'https://localhost/x']) {
      await expectRefused(portal, target)
    }
    expect(await signInRedirect(portal, '/x')).toBe(`${portal.url}/x`)
    const page = await fetch(`${portal.url}/?redirect=${encodeURIComponent(`${LOOPBACK}/x`)}`, {
      headers: { 'Accept-Language': 'en' },
    })
    expect(await page.text()).toContain('Invalid redirect URL')
  })

  it('ignores authDomain=localhost:4444: the provider answers to the public origin', async () => {
    const portal = portals.production!
    const callback = await ssoCallback(portal, 'localhost:4444')
    expect(callback).not.toContain('localhost:4444')
    expect(callback.startsWith(`${portal.url}/sso/callback`)).toBe(true)
  })

  it('has no loopback source in CSP form-action', async () => {
    const directive = await formAction(portals.production!)
    expect(directive).toMatch(/form-action 'self'/)
    expect(directive).not.toMatch(/localhost:\*|127\.0\.0\.1|\[::1\]/)
  })
})

describe('PLATFORM=production with REDIRECT_ALLOWED_ORIGINS=http://localhost:4444', () => {
  it('accepts that origin, and only that one', async () => {
    const portal = portals.productionNamed!
    expect(await signInRedirect(portal, `${LOOPBACK}/x`)).toBe(`${LOOPBACK}/x`)
    await expectRefused(portal, 'http://localhost:4445/x')
    expect(await ssoCallback(portal, 'localhost:4444')).toContain('//localhost:4444/sso/callback')
    const directive = await formAction(portal)
    expect(directive).toContain(LOOPBACK)
    expect(directive).not.toContain('localhost:*')
  })
})
