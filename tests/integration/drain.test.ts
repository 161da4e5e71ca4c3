import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPortal, type Portal } from '../../dev/portal'
import { HttpBrowser } from '../support/http-browser'

/**
 * SIGTERM as an orchestrator sends it: the portal keeps accepting connections for
 * SHUTDOWN_DELAY_MS (endpoint removal is asynchronous), then stops listening, lets requests in
 * flight finish within SHUTDOWN_TIMEOUT_MS, and exits 0 well inside the grace period.
 */
const DELAY_MS = 2_000
const TIMEOUT_MS = 3_000
/** What the manifests give: terminationGracePeriodSeconds above delay + time-out + closing the pools (2 s). */
const GRACE_MS = DELAY_MS + TIMEOUT_MS + 2_000 + 3_000

/** An identity service that takes every connection and never answers: a sign-in hangs on it. */
let hung: http.Server
const sockets = new Set<Socket>()
let portal: Portal

beforeAll(async () => {
  hung = http.createServer(() => {})
  hung.on('connection', (socket) => sockets.add(socket))
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve))
  portal = await startPortal({
    FIREBASE_AUTH_EMULATOR_HOST: `127.0.0.1:${(hung.address() as AddressInfo).port}`,
    SHUTDOWN_DELAY_MS: String(DELAY_MS),
    SHUTDOWN_TIMEOUT_MS: String(TIMEOUT_MS),
    IDENTITY_TIMEOUT_MS: '60000',
  })
})

afterAll(async () => {
  await portal?.stop('SIGKILL')
  for (const socket of sockets) socket.destroy()
  await new Promise((resolve) => hung?.close(resolve))
})

/** A GET on a new connection each time, as requests still routed to a pod being removed arrive. */
async function freshGet(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, headers: { Connection: 'close' } }, (res) => {
      res.resume()
      res.once('end', () => resolve(res.statusCode ?? 0))
    })
    req.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
  })
}

describe('draining on SIGTERM', () => {
  it('accepts new connections during SHUTDOWN_DELAY_MS with a request in flight, then exits 0 before the grace period', async () => {
    const form = await new HttpBrowser(portal.url).load()
    // In flight when SIGTERM comes, and still hung on the identity service when the time-out cuts it.
    const inFlight = form.submit('/?index', { email: 'drain@example.com', password: 'Whatever-2026' }).then(
      (res) => res.status,
      (error: Error) => error.name,
    )
    await new Promise((resolve) => setTimeout(resolve, 300))

    const signalled = Date.now()
    const exited = portal.stop('SIGTERM').then((code) => ({ code, ms: Date.now() - signalled }))

    // Through the delay: every new connection is accepted and answered; /readyz says 503 as soon as
    // the signal is handled (asked along the way: on a busy machine a last request could come after the delay).
    const during: Array<number | string> = []
    const ready: Array<number | string> = []
    while (Date.now() - signalled < DELAY_MS - 300) {
      during.push(await freshGet(`${portal.url}/healthz`))
      ready.push(await freshGet(`${portal.url}/readyz`))
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(during.length).toBeGreaterThan(5)
    expect(during.filter((status) => status !== 200), portal.output().slice(-2_000)).toEqual([])
    expect(ready.filter((status) => status !== 200 && status !== 503), 'only ready, then draining').toEqual([])
    expect(ready.at(-1)).toBe(503)

    const { code, ms } = await exited
    expect(code, portal.output().slice(-2_000)).toBe(0)
    // The delay was kept, and the whole shutdown fits inside the grace period.
    expect(ms).toBeGreaterThanOrEqual(DELAY_MS)
    expect(ms).toBeLessThan(GRACE_MS)
    await inFlight
    // Once it has stopped listening, connections are refused: the proxy tries another replica.
    expect(await freshGet(`${portal.url}/healthz`)).toBe('ECONNREFUSED')
  })
})
