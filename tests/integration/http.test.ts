import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../app/.server/config'
import { createApp } from '../../app/.server/http/app'
import { fakeBuild } from '../support/fake-build'

/** A one-route React Router build that answers with what the load context says. */
const build = fakeBuild({
  loader: ({ context }) => Response.json({ clientIp: context.clientIp }),
})

let server: Server | undefined
afterEach(() => server?.close())

async function clientIpSeen(trustProxy: string, headers: Record<string, string>) {
  const result = parseConfig({ TRUST_PROXY: trustProxy })
  if (!result.ok) throw new Error(result.errors.join())
  server = createApp({ config: result.config, build }).listen(0, '127.0.0.1')
  await new Promise((r) => server!.once('listening', r))
  const { port } = server.address() as AddressInfo
  const res = await fetch(`http://127.0.0.1:${port}/?_data=root`, { headers })
  return ((await res.json()) as { clientIp: string }).clientIp
}

describe('the HTTP server', () => {
  it('ignores X-Forwarded-For with TRUST_PROXY=0', async () => {
    expect(await clientIpSeen('0', { 'X-Forwarded-For': '203.0.113.9' })).toBe('127.0.0.1')
  })

  it('takes the client address from one trusted proxy with TRUST_PROXY=1', async () => {
    expect(await clientIpSeen('1', { 'X-Forwarded-For': '203.0.113.9' })).toBe('203.0.113.9')
  })

  it('trusts only the configured number of hops', async () => {
    // A client forging a first hop behind one real proxy: the proxy appended the true address.
    expect(await clientIpSeen('1', { 'X-Forwarded-For': '198.51.100.1, 203.0.113.9' })).toBe('203.0.113.9')
  })

  it('with TRUST_PROXY as address ranges, skips every trusted hop however many there are', async () => {
    // A cloud load balancer (10.x) in front of an ingress on this host: two trusted hops on one path,
    // one on another. The client is the nearest address that is not a trusted proxy.
    const ranges = '10.0.0.0/8, loopback'
    expect(await clientIpSeen(ranges, { 'X-Forwarded-For': '203.0.113.9, 10.1.2.3' })).toBe('203.0.113.9')
    expect(await clientIpSeen(ranges, { 'X-Forwarded-For': '203.0.113.9' })).toBe('203.0.113.9')
    // A forged entry before an untrusted address is never believed.
    expect(await clientIpSeen(ranges, { 'X-Forwarded-For': '198.51.100.1, 203.0.113.9, 10.1.2.3' })).toBe('203.0.113.9')
  })

  it('answers /healthz with 200 and returns the request id', async () => {
    const result = parseConfig({})
    if (!result.ok) throw new Error()
    server = createApp({ config: result.config, build }).listen(0, '127.0.0.1')
    await new Promise((r) => server!.once('listening', r))
    const { port } = server.address() as AddressInfo
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { 'X-Request-Id': 'abc-123' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toBe('abc-123')
    expect(res.headers.get('x-powered-by')).toBeNull()
  })

  it('answers a path that looks like another host (`//host/…`) without failing', async () => {
    const result = parseConfig({})
    if (!result.ok) throw new Error()
    server = createApp({ config: result.config, build }).listen(0, '127.0.0.1')
    await new Promise((r) => server!.once('listening', r))
    const { port } = server.address() as AddressInfo
    const res = await fetch(`http://127.0.0.1:${port}//a.^/a.a@a.aa?redirect=%2Fnext`)
    expect(res.status).toBeLessThan(500)
  })
})
