import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { startPortal, type Portal } from '../../dev/portal'
import { getFreePort } from '../../dev/ports'
import { startNginx, type Nginx } from '../support/nginx'
import { rawRequest } from '../support/raw-http'
import { csrfTokenIn } from '../support/csrf'

/**
 * The host rule (ADR 026): nothing a client sends chooses the URL a page is rendered for, so a
 * poisoned Host or X-Forwarded-Host can neither be rendered nor be kept as the page shell every
 * anonymous visitor then gets (ADR 021). Directly, and through nginx with deploy/portal-proxy.conf.
 */
const emulator = inject('emulator')

const ATTACKER = 'attacker@evil.example'
/** Made of `? # & = @`, which nginx lets through in Host: a query and a fragment for the rendered URL. */
const POISONED_HOST = `localhost?mfaError=expired&email=${ATTACKER}&redirect=%2Flogout#`
/** A path for the rendered URL: `/` would be rendered as the logout page. */
const POISONED_FORWARDED_HOST = 'localhost/logout?#'
const PATHS = ['/', '/forgot-password'] as const
const HEADINGS = { '/': '<h1>Sign In</h1>', '/forgot-password': '<h1>Please enter your email address</h1>' }

function start(env: Record<string, string> = {}): Promise<Portal> {
  return startPortal({ FIREBASE_AUTH_EMULATOR_HOST: emulator.host, FIREBASE_PROJECT_ID: emulator.projectId, ...env })
}

/** An anonymous visitor's page, with its per-request nonce and CSRF token taken out. */
async function visit(origin: string, path: string): Promise<string> {
  const res = await fetch(`${origin}${path}`, { headers: { 'Accept-Language': 'en' } })
  const body = await res.text()
  expect(res.status, body.slice(0, 500)).toBe(200)
  const nonce = /'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1] ?? 'no-nonce'
  const token = csrfTokenIn(body) ?? 'no-token'
  const page = body.replaceAll(nonce, 'NONCE').replaceAll(token, 'TOKEN')
  // Streaming's timing may move where a Suspense boundary's data lands: compare what is shown (the
  // document up to the app's footer) and the route data handed to the browser.
  const shown = page.slice(0, page.indexOf('</footer>'))
  const data = [...page.matchAll(/streamController\.enqueue\(("(?:[^"\\]|\\.)*")\)/g)].map((m) => m[1])
  expect(data.length).toBeGreaterThan(0)
  return [shown, ...data].join('\n')
}

/**
 * Sends each page three times with the poisoned headers (a shell is kept after two renders agree),
 * then checks that another visitor gets what they got before; answers the poisoned statuses.
 */
async function poison(origin: string, port: number, headers: Array<[string, string]>): Promise<number[]> {
  const before = { '/': await visit(origin, '/'), '/forgot-password': await visit(origin, '/forgot-password') }
  const statuses: number[] = []
  for (const path of PATHS) {
    for (let i = 0; i < 3; i++) {
      const answer = await rawRequest(port, `GET ${path} HTTP/1.1`, [...headers, ['Accept-Language', 'en']])
      statuses.push(answer.status)
    }
  }
  for (const path of PATHS) {
    for (let i = 0; i < 3; i++) {
      const page = await visit(origin, path)
      expect(page).toContain(HEADINGS[path])
      expect(page).not.toContain(ATTACKER)
      expect(page).not.toContain('Your verification has expired')
      expect(page).not.toContain('name="redirect"')
      expect(page).not.toContain('Do you want to log out?')
      expect(page).toBe(before[path])
    }
  }
  return statuses
}

describe('a Host or X-Forwarded-Host sent straight to the portal', () => {
  let portal: Portal
  let trusting: Portal
  beforeAll(async () => {
    ;[portal, trusting] = await Promise.all([start(), start({ TRUST_PROXY: '1' })])
  })
  afterAll(async () => {
    await Promise.all([portal?.stop(), trusting?.stop()])
  })

  it('a Host holding `? # & = @` is refused with 400 and changes no other visitor’s page', async () => {
    const statuses = await poison(portal.url, portal.port, [['Host', POISONED_HOST]])
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400])
  })

  it('with TRUST_PROXY=1, an X-Forwarded-Host holding a path is refused with 400 and changes no other visitor’s page', async () => {
    const statuses = await poison(trusting.url, trusting.port, [
      ['Host', `localhost:${trusting.port}`],
      ['X-Forwarded-Host', POISONED_FORWARDED_HOST],
    ])
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400])
  })

  it('a plain host of any name, an IPv6 literal and a port are served: the page is rendered for PUBLIC_URL', async () => {
    for (const host of ['portal.example', 'PORTAL.example:8443', '[::1]:3000', '127.0.0.1']) {
      const answer = await rawRequest(portal.port, 'GET /forgot-password?sent=1 HTTP/1.1', [['Host', host]])
      expect(answer.status, host).toBe(200)
    }
    for (const host of ['a/b', 'a@b', 'a\\b', 'a:b', '[::1', 'a b', '']) {
      const answer = await rawRequest(portal.port, 'GET / HTTP/1.1', [['Host', host]])
      expect(answer.status, JSON.stringify(host)).toBe(400)
    }
  })
})

describe('the same through nginx with deploy/nginx.conf and portal-proxy.conf (TRUST_PROXY=1)', () => {
  /** A portal of its own per test, so that neither sees the other's shells; deploy/nginx.conf in front. */
  const started: Array<{ stop(): Promise<unknown> }> = []
  async function behindNginx(): Promise<Nginx & { port: number }> {
    const port = await getFreePort()
    const portal = await start({ TRUST_PROXY: '1', PUBLIC_URL: `http://127.0.0.1:${port}` })
    started.unshift(portal)
    const nginx = await startNginx(port, [portal.port])
    started.unshift(nginx)
    return { ...nginx, port }
  }
  afterEach(async () => {
    for (const child of started.splice(0)) await child.stop()
  })

  it('a poisoned Host is refused with 400 and changes no other visitor’s page', async () => {
    const nginx = await behindNginx()
    const statuses = await poison(nginx.url, nginx.port, [['Host', POISONED_HOST]])
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400])
  })

  it('an X-Forwarded-Host never reaches the portal: the page is the ordinary one for everyone', async () => {
    const nginx = await behindNginx()
    const statuses = await poison(nginx.url, nginx.port, [
      ['Host', `127.0.0.1:${nginx.port}`],
      ['X-Forwarded-Host', POISONED_FORWARDED_HOST],
    ])
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200])
  })
})
