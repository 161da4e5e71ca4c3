import net from 'node:net'
import { readFileSync } from 'node:fs'

/**
 * The kernel hands out ports at or above this one, both to `listen(0)` and to the local end of
 * every outgoing connection (Linux's ip_local_port_range; 32768 where it cannot be read).
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    return Number.isInteger(low) && low > 20_100 ? low : 32_768
  } catch {
    return 32_768
  }
}
const FIRST = 20_000
const LAST = ephemeralLow() - 1

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer()
    server.unref()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/**
 * A TCP port free on 127.0.0.1, for a child process to listen on. It is closed again before the
 * child binds it, so it is drawn below the kernel's ephemeral range: no `listen(0)` and no outgoing
 * connection can take it in between; only another caller of this function could, one chance in
 * thousands at the same instant.
 */
export async function getFreePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST + 1))
    if (await bindable(port)) return port
  }
  throw new Error(`no free port between ${FIRST} and ${LAST}`)
}

/** Polls `check` until it resolves true, or fails after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await new Promise((r) => setTimeout(r, 150))
  }
  throw new Error(`${what} did not become ready within ${timeoutMs} ms`)
}
