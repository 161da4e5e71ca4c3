import net from 'node:net'

export interface RawAnswer {
  status: number
  /** The header block, as sent. */
  head: string
  /** The body as sent (chunked framing left in: search it, do not parse it). */
  body: string
}

/**
 * One HTTP/1.1 request written byte for byte on a fresh connection (`Connection: close` added), so
 * that a test controls what fetch and node:http would not send: the request line's target
 * (`http://host/path`, `*`) and a Host header of any shape.
 */
export function rawRequest(port: number, requestLine: string, headers: Array<[string, string]>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.setTimeout(30_000, () => socket.destroy(new Error(`no answer to ${requestLine} within 30 s`)))
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const split = text.indexOf('\r\n\r\n')
      const head = split === -1 ? text : text.slice(0, split)
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0), head, body: split === -1 ? '' : text.slice(split + 4) })
    })
    const lines = [requestLine, ...headers.map(([name, value]) => `${name}: ${value}`), 'Connection: close', '', '']
    socket.write(lines.join('\r\n'))
  })
}
