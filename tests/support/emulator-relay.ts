import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A loopback identity service's way through to the real emulator: the request as it came (method,
 * path, body, and the headers the API reads), and the emulator's answer.
 */
export async function forwardToEmulator(
  emulatorOrigin: string,
  req: http.IncomingMessage,
  text: string,
): Promise<{ status: number; contentType: string; body: string }> {
  const headers: Record<string, string> = {}
  for (const name of ['content-type', 'authorization', 'accept']) {
    const value = req.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  const res = await fetch(`${emulatorOrigin}${req.url}`, {
    method: req.method,
    headers,
    body: req.method === 'GET' || req.method === 'HEAD' ? undefined : text,
  })
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? 'application/json',
    body: await res.text(),
  }
}

export type Upstream = Awaited<ReturnType<typeof forwardToEmulator>>

/** One request to a loopback identity service, with the ways to answer it. */
export interface LoopbackCall {
  /** The API path, without the `/identitytoolkit.googleapis.com` of the emulator's own URLs. */
  path: string
  /** The JSON body (empty when there is none). */
  body: Record<string, unknown>
  answer(status: number, json: unknown): void
  /** The emulator's answer to this very request (or to it with `body` instead), to pass on with `relay` or to rework. */
  forward(body?: Record<string, unknown>): Promise<Upstream>
  relay(upstream: Upstream): void
}

/**
 * A small identity service on loopback in front of the real emulator: `handle` answers what it
 * stands in for; a request it leaves unanswered goes through to the emulator as it came.
 */
export async function startLoopbackIdentity(
  emulatorOrigin: string,
  handle: (call: LoopbackCall) => Promise<void>,
): Promise<{ host: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    let text = ''
    req.on('data', (chunk: Buffer) => (text += chunk.toString()))
    req.on('end', () => {
      const answer = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(json))
      }
      const relay = (upstream: Upstream) => {
        res.writeHead(upstream.status, { 'content-type': upstream.contentType })
        res.end(upstream.body)
      }
      const forward = (body?: Record<string, unknown>) =>
        forwardToEmulator(emulatorOrigin, req, body === undefined ? text : JSON.stringify(body))
      const path = new URL(req.url ?? '/', 'http://x').pathname.replace('/identitytoolkit.googleapis.com', '')
      Promise.resolve()
        .then(
          () =>
            (text && req.headers['content-type']?.includes('json') ? JSON.parse(text) : {}) as Record<string, unknown>,
        )
        .then((body) => handle({ path, body, answer, forward, relay }))
        .then(async () => {
          if (!res.writableEnded) relay(await forward())
        })
        .catch((err: unknown) => {
          if (res.writableEnded) return
          answer(500, { error: { code: 500, message: String(err) } })
        })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * A loopback identity service that can hold every call: from `hold()` until the function it returns
 * is called, nothing is answered. `asked` lists the paths of the calls it received, in order.
 * A page that answers while the service is held cannot have waited for the service's answer.
 */
export async function startHeldIdentity(emulatorOrigin: string) {
  let gate: Promise<void> | null = null
  const asked: string[] = []
  const service = await startLoopbackIdentity(emulatorOrigin, async ({ path }) => {
    asked.push(path)
    await gate
  })
  const hold = () => {
    let release = () => {}
    gate = new Promise<void>((resolve) => (release = resolve))
    return () => {
      gate = null
      release()
    }
  }
  return { ...service, asked, hold }
}
