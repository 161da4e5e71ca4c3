import type { Server } from 'node:http'
import net from 'node:net'
import express from 'express'
import { afterEach, describe, expect, it } from 'vitest'
import { bodyLimit } from './request-bounds'

/**
 * bodyLimit with small bounds (a 1,000-byte limit, 4,000 bytes drained at most, for at most 300 ms) in front
 * of a handler that answers 413 when the body was too large, as guardForm does, and says how much it read.
 */
const LIMIT = { maxBytes: 1_000, drainBytes: 4_000, drainMs: 300 }

let server: Server | undefined
afterEach(() => {
  server?.close()
  server = undefined
})

async function start(): Promise<number> {
  const app = express()
  app.use(bodyLimit(LIMIT))
  app.use((req, res) => {
    const answer = (read: number) => {
      if (res.locals.bodyTooLarge) res.status(413).send(`refused, ${read} bytes read`)
      else res.send(`read ${read}`)
    }
    // A body bodyLimit read itself is handed on, as the router handler takes it; else the request's own stream.
    if (res.locals.body) return answer((res.locals.body as Buffer).length)
    let read = 0
    req.on('data', (chunk: Buffer) => (read += chunk.length))
    req.on('end', () => answer(read))
  })
  server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server!.once('listening', resolve))
  return (server.address() as net.AddressInfo).port
}

interface Exchange {
  status: number
  head: string
  body: string
  /** Bytes of the body written when the answer's first byte came (all written: the body length). */
  writtenAtAnswer: number
  written: number
  error: string | null
  answerMs: number
}

/** A POST written as its head, then `body` in 500-byte writes 5 ms apart, up to `sendBytes`. */
function exchange(port: number, framing: string, body: Buffer, sendBytes = body.length): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let written = 0
    let writtenAtAnswer = -1
    let error: string | null = null
    let started = 0
    let answerMs = -1
    socket.setTimeout(5_000, () => socket.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })))
    socket.on('data', (chunk: Buffer) => {
      if (answerMs < 0) {
        answerMs = performance.now() - started
        writtenAtAnswer = written
      }
      chunks.push(chunk)
    })
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message))
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString()
      const split = text.indexOf('\r\n\r\n')
      const head = split === -1 ? text : text.slice(0, split)
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        head,
        body: split === -1 ? '' : text.slice(split + 4),
        writtenAtAnswer,
        written,
        error,
        answerMs,
      })
    })
    socket.on('connect', () => {
      started = performance.now()
      socket.write(`POST / HTTP/1.1\r\nHost: localhost\r\n${framing}\r\n\r\n`)
      let offset = 0
      const next = () => {
        if (socket.destroyed || offset >= sendBytes) return
        const slice = body.subarray(offset, Math.min(offset + 500, sendBytes))
        offset += slice.length
        socket.write(slice, (e) => {
          if (!e) written += slice.length
        })
        setTimeout(next, 5)
      }
      next()
    })
  })
}

function chunked(body: Buffer): Buffer {
  const parts: Buffer[] = []
  for (let i = 0; i < body.length; i += 250) {
    const chunk = body.subarray(i, i + 250)
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'))
  }
  return Buffer.concat([...parts, Buffer.from('0\r\n\r\n')])
}

describe('the body limit', () => {
  it('passes a body up to the limit on, announced or chunked', async () => {
    const port = await start()
    const body = Buffer.alloc(LIMIT.maxBytes, 'a')
    // The answer keeps the connection open unless asked to close it.
    const close = '\r\nConnection: close'
    expect((await exchange(port, `Content-Length: ${body.length}${close}`, body)).body).toBe(`read ${LIMIT.maxBytes}`)
    expect((await exchange(port, `Transfer-Encoding: chunked${close}`, chunked(body))).body).toContain(
      `read ${LIMIT.maxBytes}`,
    )
  })

  it('reads the rest of a body over the limit before it answers 413: the sender writes all of it and gets the whole answer', async () => {
    const port = await start()
    const body = Buffer.alloc(3_000, 'a')
    for (const [framing, bytes] of [
      [`Content-Length: ${body.length}`, body],
      ['Transfer-Encoding: chunked', chunked(body)],
    ] as const) {
      const answer = await exchange(port, framing, bytes)
      expect(answer, framing).toMatchObject({
        status: 413,
        error: null,
        written: bytes.length,
        writtenAtAnswer: bytes.length,
      })
      // The handler is given none of it.
      expect(answer.body, framing).toContain('refused, 0 bytes read')
      expect(answer.head).toMatch(/^Connection: close$/m)
    }
  })

  it('refuses at once a body announced beyond what it drains', async () => {
    const port = await start()
    const answer = await exchange(
      port,
      `Content-Length: ${LIMIT.drainBytes + 1}`,
      Buffer.alloc(LIMIT.drainBytes + 1),
      500,
    )
    expect(answer.status).toBe(413)
    expect(answer.answerMs).toBeLessThan(LIMIT.drainMs)
  })

  it('stops draining a chunked body that outgrows the drain bound, and refuses it there', async () => {
    const port = await start()
    const body = chunked(Buffer.alloc(20_000, 'a'))
    const answer = await exchange(port, 'Transfer-Encoding: chunked', body)
    expect(answer.status).toBe(413)
    expect(answer.writtenAtAnswer).toBeGreaterThan(LIMIT.drainBytes)
    expect(answer.writtenAtAnswer).toBeLessThan(body.length)
  })

  it('stops draining a body that stops coming after drainMs, and refuses it', async () => {
    const port = await start()
    const answer = await exchange(port, 'Content-Length: 3000', Buffer.alloc(3_000), 1_500)
    expect(answer.status).toBe(413)
    expect(answer.answerMs).toBeGreaterThanOrEqual(LIMIT.drainMs - 10)
    expect(answer.answerMs).toBeLessThan(LIMIT.drainMs + 1_500)
  })
})
