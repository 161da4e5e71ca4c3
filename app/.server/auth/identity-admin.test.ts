import http from 'node:http'
import https from 'node:https'
import net, { type AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deadlineAgent, withDeadline } from './identity-admin'

/** A TCP server that accepts and never answers (no HTTP, no TLS handshake); counts connections. */
let server: net.Server
let connections = 0
const held: net.Socket[] = []
beforeAll(async () => {
  server = net.createServer((socket) => {
    connections++
    held.push(socket)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
})
afterAll(async () => {
  for (const socket of held) socket.destroy()
  await new Promise((resolve) => server.close(resolve))
})

/** One GET the way firebase-admin sends it: through the given agent, failing on 'error'. */
function get(secure: boolean, agent: http.Agent): Promise<string> {
  const { port } = server.address() as AddressInfo
  const transport = secure ? https : http
  return new Promise((resolve, reject) => {
    const req = transport.request({ host: '127.0.0.1', port, path: '/', agent, rejectUnauthorized: false }, () =>
      resolve('answered'),
    )
    req.on('error', (error: NodeJS.ErrnoException) => reject(error))
    req.end()
  })
}

describe('the firebase-admin deadline agent', () => {
  for (const secure of [false, true]) {
    it(`cuts a hung ${secure ? 'https' : 'http'} request at the call's deadline, with a code firebase-admin does not retry`, async () => {
      const agent = deadlineAgent(secure, 60_000)
      const started = Date.now()
      const outcome = await withDeadline(200, () => get(secure, agent))
      expect(Date.now() - started).toBeLessThan(1_500)
      expect(outcome).toMatchObject({ ok: false, networkFailed: true, error: { code: 'IDENTITY_DEADLINE' } })
    })
  }

  it('opens no connection once the deadline has passed (a retry after it fails at once)', async () => {
    const agent = deadlineAgent(false, 60_000)
    const before = connections
    const outcome = await withDeadline(50, async () => {
      await new Promise((r) => setTimeout(r, 100))
      return get(false, agent)
    })
    expect(outcome).toMatchObject({ ok: false, networkFailed: true, error: { code: 'IDENTITY_DEADLINE' } })
    expect(connections).toBe(before)
  })

  it('a call outside withDeadline() gets the fallback time-out', async () => {
    const started = Date.now()
    await expect(get(false, deadlineAgent(false, 200))).rejects.toMatchObject({ code: 'IDENTITY_DEADLINE' })
    expect(Date.now() - started).toBeLessThan(1_500)
  })
})
