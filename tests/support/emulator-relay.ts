import type http from 'node:http'

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
  return { status: res.status, contentType: res.headers.get('content-type') ?? 'application/json', body: await res.text() }
}
