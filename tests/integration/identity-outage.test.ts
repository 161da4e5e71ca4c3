import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { getFreePort } from '../../dev/ports'
import { SERVER_ENTRY, startPortal, type Portal } from '../../dev/portal'
import { freshSessionCookie } from '../support/session-cookie'
import { HttpBrowser } from '../support/http-browser'

/**
 * What an identity outage does to visitors who are signed in (ADR 029): a session cookie made by the
 * real emulator is shown to portals whose identity service refuses connections or accepts them and
 * never answers. Only a verdict about the session may end it; an outage answers 503 in time, with
 * the cookie kept, and never holds more connections than IDENTITY_MAX_IN_FLIGHT.
 */

// The product makes this file's sessions, in the run's shared store (tests/support/session-cookie.ts).
const emu = await vi.hoisted(async () => (await import('../support/emulator-env')).pointAtEmulator())
const PASSWORD = 'Outage-password-1'
const TIMEOUT_MS = 2_000
const MAX_IN_FLIGHT = 3


/**
 * An identity service that accepts every connection and never answers. `most` is the largest number
 * of connections open at once among those opened since `resetMost()`: the identity client may keep
 * an idle connection from before (undici reopens one after an aborted request, nodejs/undici#5845).
 */
async function hungService() {
  let open = 0
  let generation = 0
  let most = 0
  const server = http.createServer(() => undefined)
  server.on('connection', (socket) => {
    const counted = generation
    open++
    most = Math.max(most, open)
    socket.once('close', () => {
      if (counted === generation) open--
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    most: () => most,
    resetMost: () => {
      generation++
      open = 0
      most = 0
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

function sessionCleared(res: Response): boolean {
  return res.headers.getSetCookie().some((c) => /^session=/.test(c))
}

describe('an identity outage and the signed-in visitor', () => {
  let refusedPortal: Portal | undefined
  let hungPortal: Portal | undefined
  let hung: Awaited<ReturnType<typeof hungService>> | undefined
  let cookie = ''
  let setupError: Error | undefined

  beforeAll(async () => {
    try {
      if (!existsSync(SERVER_ENTRY)) throw new Error(`${SERVER_ENTRY} is missing: run \`npm run build\` first`)
      cookie = await freshSessionCookie(emu, PASSWORD, 'outage')
      hung = await hungService()
      const common = {
        FIREBASE_PROJECT_ID: emu.projectId,
        // The run's store, where the cookie's session was made.
        SESSION_STORE_PATH: inject('portal').sessionStorePath,
        IDENTITY_TIMEOUT_MS: String(TIMEOUT_MS),
        IDENTITY_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT),
      }
      // Nothing listens on a free port: every connection is refused.
      const refusedHost = `127.0.0.1:${await getFreePort()}`
      ;[refusedPortal, hungPortal] = await Promise.all([
        startPortal({ ...common, FIREBASE_AUTH_EMULATOR_HOST: refusedHost }),
        startPortal({ ...common, FIREBASE_AUTH_EMULATOR_HOST: hung.host }),
      ])
    } catch (error) {
      setupError = error as Error
    }
  })
  afterAll(async () => {
    await Promise.all([refusedPortal?.stop(), hungPortal?.stop()])
    await hung?.close()
  })

  function running() {
    if (setupError) throw setupError
    return { refused: refusedPortal!, hung: hungPortal!, service: hung! }
  }

  it('the same cookie is a signed-in page while the service answers', async () => {
    running()
    const res = await fetch(`${inject('portal').url}/`, { headers: { Cookie: cookie, 'Accept-Language': 'en' } })
    expect(res.status).toBe(200)
    expect(sessionCleared(res)).toBe(false)
    expect(await res.text()).toContain('@example')
  })

  it('a refused connection keeps the cookie and answers 503', async () => {
    const { refused } = running()
    const res = await fetch(`${refused.url}/`, { headers: { Cookie: cookie, 'Accept-Language': 'en' } })
    expect(res.status).toBe(503)
    expect(sessionCleared(res)).toBe(false)
    expect(await res.text()).toContain('The service is temporarily unavailable')
  })

  it('a hung service answers 503 within IDENTITY_TIMEOUT_MS + 3 s (a busy machine\'s slack), cookie kept', async () => {
    const { hung } = running()
    const started = Date.now()
    const res = await fetch(`${hung.url}/`, {
      headers: { Cookie: cookie },
      signal: AbortSignal.timeout(TIMEOUT_MS + 10_000),
    })
    const elapsed = Date.now() - started
    expect(res.status).toBe(503)
    expect(sessionCleared(res)).toBe(false)
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 3_000)
  })

  it('20 signed-in visitors during a hang hold at most IDENTITY_MAX_IN_FLIGHT connections to it', async () => {
    const { hung, service } = running()
    // Let calls from earlier tests end first (each within the time-out).
    await new Promise((r) => setTimeout(r, TIMEOUT_MS + 500))
    service.resetMost()
    const answers = Array.from({ length: 20 }, () =>
      fetch(`${hung.url}/`, { headers: { Cookie: cookie }, signal: AbortSignal.timeout(TIMEOUT_MS + 10_000) }).then(
        async (res) => (await res.arrayBuffer(), { status: res.status, cleared: sessionCleared(res) }),
        () => ({ status: 0, cleared: false }),
      ),
    )
    // Every connection they could open is open by then.
    await new Promise((r) => setTimeout(r, TIMEOUT_MS / 2))
    expect(service.most()).toBeLessThanOrEqual(MAX_IN_FLIGHT)
    const settled = await Promise.all(answers)
    expect(settled.every((a) => a.status === 503 && !a.cleared)).toBe(true)
  })
})

describe('the token sync at sign-in', () => {
  let portal: Portal | undefined
  let sync: http.Server | undefined
  let setupError: Error | undefined

  beforeAll(async () => {
    try {
      // A token-sync service that answers after 20 s: far beyond TOKEN_SYNC_TIMEOUT_MS (2 s by default).
      sync = http.createServer((_req, res) => setTimeout(() => res.end(), 20_000).unref())
      await new Promise<void>((resolve) => sync!.listen(0, '127.0.0.1', resolve))
      portal = await startPortal({
        FIREBASE_AUTH_EMULATOR_HOST: emu.host,
        FIREBASE_PROJECT_ID: emu.projectId,
        TOKEN_SYNC_URL: `http://127.0.0.1:${(sync.address() as AddressInfo).port}/sync`,
      })
    } catch (error) {
      setupError = error as Error
    }
  })
  afterAll(async () => {
    await portal?.stop()
    sync?.closeAllConnections()
    sync?.close()
  })

  it('a slow token sync delays sign-in by at most its own time-out', async () => {
    if (setupError) throw setupError
    const email = uniqueEmail('slow-sync')
    await emulatorAdmin(emu).createUser(email, PASSWORD)
    const signInForm = await new HttpBrowser(portal!.url).load()
    const started = Date.now()
    const res = await signInForm.submit('/?index', { email, password: PASSWORD })
    const elapsed = Date.now() - started
    expect(res.status).toBe(303)
    expect(res.headers.getSetCookie().some((c) => c.startsWith('session='))).toBe(true)
    // 2 s of sync plus the sign-in itself, with room for a busy machine.
    expect(elapsed).toBeLessThan(6_000)
  })
})
