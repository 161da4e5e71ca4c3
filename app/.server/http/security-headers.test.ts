import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { parseConfig } from '~/.server/config'
import { fakeBuild } from '../../../tests/support/fake-build'
import { createApp } from './app'
import { MAX_BODY_BYTES } from './request-bounds'
import { contentSecurityPolicy } from './security-headers'

/**
 * A one-route React Router build: GET shows the nonce it was given, POST echoes the size of the body it
 * read; a body the limit refused is answered 413 with what was left of it (as guardForm in app/.server/result.ts does).
 */
const build = fakeBuild({
  loader: ({ context }) => Response.json({ nonce: context.cspNonce }),
  action: async ({ request, context }) => {
    const read = (await request.text()).length
    return context.bodyTooLarge ? new Response(`refused, ${read} bytes read`, { status: 413 }) : Response.json({ read })
  },
})

const clientDir = mkdtempSync(path.join(tmpdir(), 'portal-client-'))
mkdirSync(path.join(clientDir, 'assets'))
writeFileSync(path.join(clientDir, 'favicon.ico'), 'icon')
writeFileSync(path.join(clientDir, 'assets', 'app.js'), 'console.log(1)')
afterAll(() => rmSync(clientDir, { recursive: true, force: true }))

let server: Server | undefined
afterEach(() => {
  server?.close()
  server = undefined
})

async function start(env: Record<string, string> = {}) {
  const result = parseConfig(env)
  if (!result.ok) throw new Error(result.errors.join())
  server = createApp({ config: result.config, build, clientDir }).listen(0, '127.0.0.1')
  await new Promise((r) => server!.once('listening', r))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function expectSecurityHeaders(res: Response) {
  const csp = res.headers.get('content-security-policy') ?? ''
  expect(csp).toMatch(
    /^default-src 'self'; script-src 'nonce-[\w+/]{22}==' 'strict-dynamic'; object-src 'none'; base-uri 'none'; /,
  )
  expect(csp).toContain("frame-ancestors 'none'")
  expect(csp).toContain("form-action 'self'")
  expect(csp).not.toContain('recaptcha')
  expect(csp).not.toContain('upgrade-insecure-requests')
  expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin')
  expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin')
  expect(res.headers.get('permissions-policy')).toContain('camera=(), ')
  expect(res.headers.get('permissions-policy')).toContain('interest-cohort=()')
  expect(res.headers.get('x-frame-options')).toBe('DENY')
  expect(res.headers.get('strict-transport-security')).toBeNull()
  expect(res.headers.get('x-powered-by')).toBeNull()
}

describe('security headers', () => {
  it('are on pages, /healthz, 404s, errors and static files', async () => {
    const base = await start()
    const responses = {
      page: await fetch(`${base}/?_data=root`),
      healthz: await fetch(`${base}/healthz`),
      remix404: await fetch(`${base}/no/such/page`),
      asset404: await fetch(`${base}/assets/missing.js`),
      asset: await fetch(`${base}/assets/app.js`),
      file: await fetch(`${base}/favicon.ico`),
    }
    expect(Object.fromEntries(Object.entries(responses).map(([k, r]) => [k, r.status]))).toEqual({
      page: 200,
      healthz: 200,
      remix404: 404,
      asset404: 404,
      asset: 200,
      file: 200,
    })
    for (const res of Object.values(responses)) {
      expectSecurityHeaders(res)
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin')
    }
    // Express's own error page would have sent its stack trace outside production.
    expect(await responses.asset404.text()).toBe('Not Found')
  })

  it('give each response a fresh nonce, the one the loaders see', async () => {
    const base = await start()
    const nonces = new Set<string>()
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${base}/?_data=root`)
      const { nonce } = (await res.json()) as { nonce: string }
      expect(res.headers.get('content-security-policy')).toContain(`'nonce-${nonce}'`)
      nonces.add(nonce)
    }
    expect(nonces.size).toBe(5)
  })

  it('send no referrer from the pages whose URL carries a one-time code', async () => {
    const base = await start()
    for (const page of ['/action?mode=resetPassword&oobCode=x', '/new-password', '/action.data']) {
      expect((await fetch(`${base}${page}`)).headers.get('referrer-policy')).toBe('no-referrer')
    }
    expect((await fetch(`${base}/actions`)).headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin')
  })

  it('add HSTS and upgrade-insecure-requests for an https public origin', async () => {
    const base = await start({ PUBLIC_URL: 'https://login.example.com' })
    const res = await fetch(`${base}/healthz`)
    expect(res.headers.get('strict-transport-security')).toBe('max-age=63072000; includeSubDomains')
    expect(res.headers.get('content-security-policy')).toMatch(/; upgrade-insecure-requests$/)
  })

  it('follow FRAME_ANCESTORS, dropping X-Frame-Options for an allow-list', async () => {
    const base = await start({ FRAME_ANCESTORS: 'https://portal.example.com' })
    const res = await fetch(`${base}/healthz`)
    expect(res.headers.get('content-security-policy')).toContain('frame-ancestors https://portal.example.com;')
    expect(res.headers.get('x-frame-options')).toBeNull()
  })
})

describe('contentSecurityPolicy', () => {
  it('allows reCAPTCHA (from RECAPTCHA_SCRIPT_URL) and Sentry only when asked', () => {
    const csp = contentSecurityPolicy({
      nonce: 'n',
      https: true,
      frameAncestors: "'none'",
      sentryDsn: 'https://key@o123.ingest.sentry.io/456',
      recaptchaScriptUrl: 'https://www.google.com/recaptcha/enterprise.js',
    })
    expect(csp).toContain(
      "script-src 'nonce-n' 'strict-dynamic' https://www.google.com/recaptcha/ https://www.gstatic.com/recaptcha/;",
    )
    expect(csp).toContain('frame-src https://www.google.com/recaptcha/ https://recaptcha.google.com/recaptcha/;')
    expect(csp).toContain("connect-src 'self' https://o123.ingest.sentry.io;")
    expect(csp).not.toContain('key@')
    const plain = contentSecurityPolicy({ nonce: 'n', https: false, frameAncestors: "'none'" })
    expect(plain).not.toMatch(/frame-src|recaptcha|sentry/)
    expect(plain).toMatch(/; connect-src 'self'$/)
    expect(plain).toContain("style-src 'self';")
    expect(plain).toContain("form-action 'self';")
  })

  it("admits the script's own origin, not Google's, when RECAPTCHA_SCRIPT_URL is recaptcha.net", () => {
    const csp = contentSecurityPolicy({
      nonce: 'n',
      https: true,
      frameAncestors: "'none'",
      recaptchaScriptUrl: 'https://www.recaptcha.net/recaptcha/enterprise.js',
    })
    expect(csp).toContain(
      "script-src 'nonce-n' 'strict-dynamic' https://www.recaptcha.net/recaptcha/ https://www.gstatic.com/recaptcha/;",
    )
    expect(csp).toContain('frame-src https://www.recaptcha.net/recaptcha/;')
    expect(csp).not.toContain('google.com')
  })

  it("lets a page's forms be redirected to the checked targets it names, and nowhere else", () => {
    const csp = contentSecurityPolicy({ nonce: 'n', https: true, frameAncestors: "'none'", formTargets: ['https://app.example.com'] })
    expect(csp).toContain("form-action 'self' https://app.example.com;")
  })
})

/** A raw POST, so that the test controls Content-Length and chunking. */
function post(base: string, body: Buffer, chunked: boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/?_data=root`, {
      method: 'POST',
      headers: {
        'Content-Type': 'text/plain',
        ...(chunked ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': String(body.length) }),
      },
    })
    req.on('response', (res) => {
      let text = ''
      res.on('data', (c: Buffer) => (text += c.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    // The server may close the connection before the client has sent everything.
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err),
    )
    if (chunked) {
      for (let i = 0; i < body.length; i += 1024) req.write(body.subarray(i, i + 1024))
      req.end()
    } else {
      req.end(body)
    }
  })
}

describe('the body limit', () => {
  const big = Buffer.alloc(20 * 1024, 'a')
  const small = Buffer.alloc(MAX_BODY_BYTES, 'b')

  it('hands React Router none of a 20 KiB body, announced or chunked, and says it was too large', async () => {
    const base = await start()
    for (const chunked of [false, true]) {
      const res = await post(base, big, chunked)
      expect(res).toEqual({ status: 413, body: 'refused, 0 bytes read' })
    }
  })

  it('passes a body up to the limit on to React Router, announced or chunked', async () => {
    const base = await start()
    for (const chunked of [false, true]) {
      const res = await post(base, small, chunked)
      expect(res.status).toBe(200)
      expect(JSON.parse(res.body)).toEqual({ read: MAX_BODY_BYTES })
    }
  })

  it('carries the security headers on the 413', async () => {
    const base = await start()
    const res = await fetch(`${base}/?_data=root`, { method: 'POST', body: big })
    expect(res.status).toBe(413)
    expectSecurityHeaders(res)
  })
})
