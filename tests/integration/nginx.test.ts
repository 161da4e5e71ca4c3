import { existsSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { startPortal, type Portal } from '../../dev/portal'
import { getFreePort } from '../../dev/ports'
import { checkNginxConfig, deployedNginxConfig, startNginx } from '../support/nginx'
import { HttpBrowser } from '../support/http-browser'

/**
 * deploy/nginx.conf itself, not a test's own copy: `nginx -t` accepts it, and it carries a
 * sign-in's answer of real size (the CSP lists 40 more origins a visitor may be sent on to, as a
 * large deployment does) back to the visitor: 303, where nginx's 4 KB default header buffer gives a 502.
 */
const emu = inject('emulator')
const admin = emulatorAdmin(emu)
const PASSWORD = 'Nginx-test-password-2026'

let portal: Portal
let nginxPort = 0

beforeAll(async () => {
  nginxPort = await getFreePort()
  // Forty origins a visitor may be sent on to: each is a form-action source of the CSP.
  const origins = Array.from(
    { length: 40 },
    (_, i) => `https://customer-application-number-${i}.europe-west1.apps.example-corporation.com`,
  )
  portal = await startPortal({
    FIREBASE_AUTH_EMULATOR_HOST: emu.host,
    FIREBASE_PROJECT_ID: emu.projectId,
    PUBLIC_URL: `http://127.0.0.1:${nginxPort}`,
    TRUST_PROXY: '1',
    REDIRECT_ALLOWED_ORIGINS: origins.join(','),
  })
})

afterAll(async () => {
  await portal?.stop()
})

/** Signs in through nginx; then opens the signed-in page with the session cookie it got. */
async function signInThrough(edit?: (conf: string) => string) {
  const nginx = await startNginx(nginxPort, [portal.port], edit)
  try {
    const email = uniqueEmail('nginx')
    await admin.createUser(email, PASSWORD)
    const form = await new HttpBrowser(nginx.url).load()
    const answer = await form.submit('/?index', { email, password: PASSWORD })
    const session = answer.headers.getSetCookie().find((c) => c.startsWith('session='))
    const page = session ? await fetch(`${nginx.url}/`, { headers: { Cookie: session.split(';')[0]! } }) : null
    const headerBytes = [...answer.headers].reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0)
    return {
      answer,
      session,
      headerBytes,
      page: page && { status: page.status, html: await page.text() },
      email,
      logs: nginx.output(),
    }
  } finally {
    await nginx.stop()
  }
}

describe('deploy/nginx.conf', () => {
  it('passes `nginx -t`', () => {
    const { status, output } = checkNginxConfig(deployedNginxConfig('/tmp', 8080, [3000, 3001]))
    expect(output).toMatch(/syntax is ok/)
    expect(status, output).toBe(0)
  })

  it('carries a sign-in answer with 40 form-action origins: 303, not 502', async () => {
    const { answer, session, headerBytes, page, email, logs } = await signInThrough()
    expect(answer.status, logs).toBe(303)
    expect(session).toMatch(/^session=[\w-]{43};/)
    expect(answer.headers.get('content-security-policy')).toContain(
      'customer-application-number-39.europe-west1.apps.example-corporation.com',
    )
    expect(headerBytes).toBeGreaterThan(4_096)
    // The session opens the signed-in page through nginx.
    expect(page?.status).toBe(200)
    expect(page?.html).toContain(email)
  })

  it("passes the portal's brotli and gzip assets through, and never compresses a page (which holds a CSRF token: BREACH)", async () => {
    const nginx = await startNginx(nginxPort, [portal.port])
    try {
      const page = await fetch(`${nginx.url}/`, { headers: { 'Accept-Encoding': 'gzip, br' } })
      const html = await page.text()
      expect(page.headers.get('content-encoding')).toBeNull()
      const assets = [...html.matchAll(/href="(\/assets\/[^"]+\.(?:js|css|json))"/g)].map((m) => m[1]!)
      expect(
        assets.some((a) => a.endsWith('.json')),
        'the page preloads its strings',
      ).toBe(true)
      for (const asset of assets) {
        for (const [encoding, extension] of [
          ['gzip', 'gz'],
          ['br', 'br'],
        ] as const) {
          const answer = await fetch(`${nginx.url}${asset}`, { headers: { 'Accept-Encoding': encoding } })
          await answer.arrayBuffer()
          // A file so small that its compressed copy would be larger has none (scripts/compress-assets.js).
          const expected = existsSync(path.join('build/client', `${asset}.${extension}`)) ? encoding : null
          expect([asset, answer.status, answer.headers.get('content-encoding')]).toEqual([asset, 200, expected])
        }
      }
      expect(
        assets.filter((a) => existsSync(path.join('build/client', `${a}.br`))).length,
        'most assets have copies',
      ).toBeGreaterThan(assets.length / 2)
    } finally {
      await nginx.stop()
    }
  })

  it("without its header buffers, this deployment's pages are nginx's 502 (what the sizes are for)", async () => {
    const nginx = await startNginx(nginxPort, [portal.port], (conf) =>
      conf.replace(/^ *proxy_(buffer_size|buffers|busy_buffers_size) .*$/gm, ''),
    )
    try {
      expect((await fetch(`${nginx.url}/`)).status).toBe(502)
      expect(nginx.output()).toMatch(/upstream sent too big header/)
    } finally {
      await nginx.stop()
    }
  })
})
