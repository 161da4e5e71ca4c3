import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createIdentityClient } from '../../app/.server/identity'

/**
 * The identity client's connections, counted by a loopback service standing in for the identity
 * service: none before the first call, one kept alive for the calls, none left once closed.
 */

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
})

/** A service that refuses every call (400 INVALID_ID_TOKEN), and counts the connections it is given and those still open. */
async function countingService() {
  const counts = { opened: 0, open: 0 }
  server = createServer((_, res) => {
    res.writeHead(400, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: { code: 400, message: 'INVALID_ID_TOKEN' } }))
  })
  server.on('connection', (socket) => {
    counts.opened++
    counts.open++
    socket.once('close', () => counts.open--)
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, counts }
}

describe('createIdentityClient', () => {
  it('opens no connection before the first call, keeps one for the calls, and leaves none open once closed', async () => {
    const service = await countingService()
    const client = createIdentityClient({ apiKey: 'k', emulatorOrigin: service.origin, tenantId: null, projectId: 'p', timeoutMs: 5_000 })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(service.counts.opened).toBe(0)

    // One call after another reuses the connection (undici hands it back a moment after the answer:
    // a call sent at once may open a second one, as the pool allows).
    for (let i = 0; i < 3; i++) {
      await expect(client.deleteAccount('not-a-token')).rejects.toMatchObject({ code: 'auth/invalid-user-token' })
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(service.counts.opened).toBe(1)
    expect(service.counts.open).toBe(1)

    await client.close()
    await expect.poll(() => service.counts.open).toBe(0)
    expect(service.counts.opened).toBe(1)
  })
})
