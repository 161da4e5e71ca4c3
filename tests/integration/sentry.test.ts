import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { createRequestHandler, type ServerBuild } from 'react-router'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { parseConfig } from '../../app/.server/config'
import { createPortalContext } from '../../app/.server/http/router-handler'
import { sentryEnabled } from '../../app/.server/ops/sentry'

/**
 * Error reporting end to end: the production build, in this process, reporting to a loopback
 * server that stands in for Sentry's ingest endpoint.
 */
const BUILD = path.resolve('build/server/index.js')
const envelopes: string[] = []
let ingest: Server
let saved: NodeJS.ProcessEnv

beforeAll(async () => {
  if (!existsSync(BUILD)) throw new Error('No build found: run `npm run build` first')
  ingest = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString('latin1')))
    req.on('end', () => {
      envelopes.push(body)
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((r) => ingest.listen(0, '127.0.0.1', r))
  const emulator = inject('emulator')
  saved = { ...process.env }
  // The build reads its configuration from the environment on first use.
  Object.assign(process.env, {
    PLATFORM: 'development',
    SENTRY_DSN: `http://publickey@127.0.0.1:${(ingest.address() as AddressInfo).port}/1`,
    SESSION_SECRET: 'a-test-secret-that-is-long-enough-1234567890',
    FIREBASE_AUTH_EMULATOR_HOST: emulator.host,
    FIREBASE_PROJECT_ID: emulator.projectId,
    LOG_LEVEL: 'silent',
  })
})

afterAll(async () => {
  process.env = saved
  await new Promise((r) => ingest.close(r))
})

describe('error reporting', () => {
  it('reports a loader error to Sentry with no secret in the event, and shows the error page', async () => {
    const build = (await import(pathToFileURL(BUILD).href)) as ServerBuild
    const handle = createRequestHandler(build, 'production')
    // Secrets are built at run time so that the source lines Sentry attaches hold none.
    const [password, oobCode, session, csrf, token] = ['hunter', 'OOB', 'SESSION', 'CSRF', 'TOKEN'].map((s) => `${s}${2 * 21}`)
    // A loader that fails: reading the public origin throws, as a programming error would.
    const context = createPortalContext({
      clientIp: '127.0.0.1',
      requestId: 'req-sentry',
      cspNonce: 'nonce',
      requestOrigin: null,
      get publicOrigin(): string {
        throw new Error(`loader failed: password=${password} oobCode=${oobCode}`)
      },
    })
    const response = await handle(
      new Request(`http://localhost/?redirect=%2Fnext&oobCode=${oobCode}`, {
        headers: { Cookie: `session=${session}; csrf=${csrf}`, Authorization: `Bearer ${token}` },
      }),
      context,
    )
    expect(response.status).toBe(500)
    const html = await response.text()
    expect(html).toContain('Une erreur inattendue s’est produite')
    expect(html).not.toContain('loader failed')
    expect(html).not.toMatch(/\n\s+at /)

    const { flushReports } = await import('../../app/.server/ops/sentry')
    await flushReports()
    await expect.poll(() => envelopes.join('\n'), { timeout: 5_000 }).toContain('loader failed')
    const sent = envelopes.join('\n')
    for (const secret of [password, oobCode, session, csrf, token]) {
      expect(sent).not.toContain(secret)
    }
    expect(sent).toContain('"environment":"development"')
  })

  it('is off when PLATFORM is local, or without a DSN', () => {
    const dsn = 'http://k@127.0.0.1:1/1'
    const config = (env: Record<string, string>) => {
      const result = parseConfig(env)
      if (!result.ok) throw new Error(result.errors.join())
      return result.config
    }
    expect(sentryEnabled(config({ PLATFORM: 'local', SENTRY_DSN: dsn }))).toBe(false)
    expect(sentryEnabled(config({ PLATFORM: 'test' }))).toBe(false)
    expect(sentryEnabled(config({ PLATFORM: 'test', SENTRY_DSN: dsn }))).toBe(true)
  })
})
