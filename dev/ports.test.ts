import net from 'node:net'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { getFreePort } from './ports'

describe('getFreePort', () => {
  it('draws ports below the kernel’s ephemeral range, that a server can then bind', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    const ports = await Promise.all(Array.from({ length: 20 }, () => getFreePort()))
    for (const port of ports) expect(port).toBeLessThan(low)
    const server = net.createServer()
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(ports[0], '127.0.0.1', resolve))
    await new Promise((resolve) => server.close(resolve))
  })
})
