import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFreePort } from '../../dev/ports'
import type { Portal } from '../../dev/portal'
import { MAX_BODY_BYTES } from '../../app/.server/http/request-bounds'
import { startNginx } from '../support/nginx'
import { pacedLink, type PacedLink } from '../support/paced-link'
import { startOnEmulator } from '../support/portal'

/**
 * A body over the portal's bound (16 KiB) is refused with 413, and refused cleanly: the portal reads
 * (and discards) what the sender is still writing before it closes, up to a bound, so the sender sees the
 * 413 and no reset (RFC 9112 §9.6). Behind deploy/nginx.conf, whose own bound is the portal's, a 20 KB
 * post repeated under load never yields a 502 and never marks a healthy replica failed (ADR 060).
 * Two replicas of the production build; nginx reaches them through paced links (tests/support/paced-link.ts),
 * which carry bytes as a network does rather than 64 KB at once as loopback does. Everything on loopback,
 * bounded in count and time.
 */

const KB = 1024
/** The drain's time limit (DRAIN_MS in app/.server/http/body-limit.ts), with room for a busy machine. */
const DRAIN_LIMIT_MS = 5_000

let replicas: Portal[] = []
/** One paced link in front of each replica: nginx's upstreams. */
let links: PacedLink[] = []
let nginxPort = 0

beforeAll(async () => {
  nginxPort = await getFreePort()
  const settings = { TRUST_PROXY: '1', PUBLIC_URL: `http://127.0.0.1:${nginxPort}` }
  const started = await Promise.allSettled([startOnEmulator(settings), startOnEmulator(settings)])
  replicas = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
  const failed = started.find((r) => r.status === 'rejected')
  if (failed) throw failed.reason
  links = await Promise.all(replicas.map((r) => pacedLink(r.port)))
})

afterAll(async () => {
  await Promise.all(links.map((l) => l.close()))
  await Promise.all(replicas.map((r) => r.stop()))
})

interface Exchange {
  status: number
  head: string
  body: string
  /** Bytes of the request the socket accepted without an error. */
  written: number
  /** The socket's error (ECONNRESET, EPIPE), if any. */
  error: string | null
  /** From the first byte written to the first byte of the answer. */
  answerMs: number
}

/**
 * One request on a fresh connection, written as a client would: its head, then `body` in writes of
 * `piece` bytes `gapMs` apart, up to `sendBytes` (a client that stops sending); whatever comes back is
 * read until the server closes the connection.
 */
function exchange(
  port: number,
  head: string,
  body: Buffer,
  { piece = body.length, gapMs = 0, sendBytes = body.length } = {},
): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let written = 0
    let error: string | null = null
    let started = 0
    let answered = -1
    socket.setTimeout(30_000, () =>
      socket.destroy(Object.assign(new Error('no answer within 30 s'), { code: 'TIMEOUT' })),
    )
    socket.on('data', (chunk: Buffer) => {
      if (answered < 0) answered = performance.now() - started
      chunks.push(chunk)
    })
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message))
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const split = text.indexOf('\r\n\r\n')
      const responseHead = split === -1 ? text : text.slice(0, split)
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(responseHead)?.[1] ?? 0),
        head: responseHead,
        body: split === -1 ? '' : text.slice(split + 4),
        written,
        error,
        answerMs: answered,
      })
    })
    socket.on('connect', () => {
      started = performance.now()
      socket.write(head)
      let offset = 0
      const next = () => {
        if (socket.destroyed || offset >= sendBytes) return
        const slice = body.subarray(offset, Math.min(offset + piece, sendBytes))
        offset += slice.length
        socket.write(slice, (e) => {
          if (!e) written += slice.length
        })
        if (gapMs > 0) setTimeout(next, gapMs)
        else next()
      }
      next()
    })
  })
}

/** A form post's head to /forgot-password, announcing `length` bytes, or chunked. */
function postHead(port: number, length: number | 'chunked'): string {
  const framing = length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`
  return [
    'POST /forgot-password HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    'Content-Type: application/x-www-form-urlencoded',
    'Accept-Language: en',
    framing,
    '',
    '',
  ].join('\r\n')
}

/** `email=aaa…`, `size` bytes in all. */
function formBody(size: number): Buffer {
  return Buffer.from(`email=${'a'.repeat(size - 'email='.length)}`)
}

/** The same body framed in chunks of 1 KiB, ending with the last chunk. */
function chunked(body: Buffer): Buffer {
  const parts: Buffer[] = []
  for (let i = 0; i < body.length; i += KB) {
    const chunk = body.subarray(i, i + KB)
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'))
  }
  parts.push(Buffer.from('0\r\n\r\n'))
  return Buffer.concat(parts)
}

describe('a body over the limit, straight to the portal', () => {
  it.each([
    ['announced, written at once', false, 0],
    ['announced, written 1 KiB every 10 ms', false, 10],
    ['chunked, written at once', true, 0],
    ['chunked, written 1 KiB every 10 ms', true, 10],
  ] as const)('a 20 KB post (%s) gets the whole 413 page and no reset', async (_, isChunked, gapMs) => {
    const port = replicas[0]!.port
    const body = isChunked ? chunked(formBody(20 * KB)) : formBody(20 * KB)
    const answer = await exchange(port, postHead(port, isChunked ? 'chunked' : body.length), body, { piece: KB, gapMs })
    const summary = JSON.stringify({ ...answer, body: `${answer.body.length} characters` })
    expect(answer.error, summary).toBeNull()
    expect(answer.written, summary).toBe(body.length)
    expect(answer.status, summary).toBe(413)
    expect(answer.head).toMatch(/^connection: close$/im)
    expect(answer.body).toMatch(/<\/html>\s*(0\r\n\r\n)?$/)
  })

  it('a body announced far over any drain (1 MiB) is refused at once, without waiting for it', async () => {
    const port = replicas[0]!.port
    const body = formBody(1024 * KB)
    // A sender that waits for the answer after its first kilobyte.
    const answer = await exchange(port, postHead(port, body.length), body, { sendBytes: KB })
    expect(answer.status, JSON.stringify(answer.head)).toBe(413)
    expect(answer.answerMs).toBeLessThan(DRAIN_LIMIT_MS / 2)
  })

  it('a 20 KB body that stops coming is refused once the drain gives up, and the connection closes', async () => {
    const port = replicas[0]!.port
    const body = formBody(20 * KB)
    const answer = await exchange(port, postHead(port, body.length), body, { sendBytes: KB })
    expect(answer.status, JSON.stringify(answer.head)).toBe(413)
    expect(answer.answerMs).toBeLessThan(DRAIN_LIMIT_MS + 5_000)
  }, 20_000)
})

/** Lines of nginx's error log that tell of a replica failing or being set aside. */
const UPSTREAM_TROUBLE =
  /upstream server temporarily disabled|no live upstreams|while (?:reading|sending)[^\n]*upstream|reset by peer|prematurely closed/

/**
 * `posts` form posts of `size` bytes to /forgot-password through nginx, `concurrency` at a time, with a GET
 * of the sign-in page after every fourth: each request's status (0 when fetch failed) by kind.
 */
async function underLoad(url: string, { posts = 200, size = 20 * KB, concurrency = 16 } = {}) {
  const body = formBody(size).toString()
  const jobs: Array<'post' | 'get'> = []
  for (let i = 0; i < posts; i++) jobs.push(...(i % 4 === 3 ? (['post', 'get'] as const) : (['post'] as const)))
  const statuses = { post: [] as number[], get: [] as number[] }
  const errors: string[] = []
  let next = 0
  const worker = async () => {
    while (next < jobs.length) {
      const kind = jobs[next++]!
      try {
        const res =
          kind === 'post'
            ? await fetch(`${url}/forgot-password`, {
                method: 'POST',
                headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Accept-Language': 'en' },
                body,
                signal: AbortSignal.timeout(20_000),
              })
            : await fetch(`${url}/`, { signal: AbortSignal.timeout(20_000) })
        await res.arrayBuffer()
        statuses[kind].push(res.status)
      } catch (error) {
        statuses[kind].push(0)
        errors.push(String((error as Error).cause ?? error))
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const count = (list: number[]) =>
    list.reduce<Record<number, number>>((all, s) => ({ ...all, [s]: (all[s] ?? 0) + 1 }), {})
  return { post: count(statuses.post), get: count(statuses.get), errors: [...new Set(errors)] }
}

describe('a 20 KB post through deploy/nginx.conf to two replicas, repeated under load', () => {
  it.each([
    ['deploy/nginx.conf as it is', (conf: string) => conf],
    // A proxy in front that admits more than the portal (deploy/nginx.conf's bound before ADR 060, 32k): the replicas drain.
    [
      'an nginx that forwards bodies up to 32 KB',
      (conf: string) => conf.replace(/client_max_body_size \w+;/, 'client_max_body_size 32k;'),
    ],
  ])(
    'never yields a 502 and never marks a replica failed (%s)',
    async (_, edit) => {
      const nginx = await startNginx(
        nginxPort,
        links.map((l) => l.port),
        edit,
      )
      try {
        const resetsBefore = links.map((l) => l.resets())
        const result = await underLoad(nginx.url)
        const resets = links.map((l, i) => l.resets() - resetsBefore[i]!)
        const trouble = nginx
          .output()
          .split('\n')
          .filter((line) => UPSTREAM_TROUBLE.test(line))
        const summary = JSON.stringify(
          { ...result, resets, trouble: trouble.slice(0, 5), troubleLines: trouble.length },
          null,
          1,
        )
        expect(result.post, summary).toEqual({ 413: 200 })
        expect(result.get, summary).toEqual({ 200: 50 })
        expect(trouble, summary).toEqual([])
        expect(resets, `connections a replica reset. ${summary}`).toEqual([0, 0])
      } finally {
        await nginx.stop()
      }
    },
    120_000,
  )

  it("refuses in nginx itself what the portal would refuse: its bound is the portal's", async () => {
    const nginx = await startNginx(
      nginxPort,
      links.map((l) => l.port),
    )
    try {
      const post = (size: number) =>
        fetch(`${nginx.url}/forgot-password`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Accept-Language': 'en' },
          body: formBody(size).toString(),
        })
      // At the bound the replica answers (no CSRF token: 403, the translated page); one byte more, nginx does.
      const atBound = await post(MAX_BODY_BYTES)
      await atBound.arrayBuffer()
      expect(atBound.status).toBe(403)
      expect(atBound.headers.get('x-request-id')).not.toBeNull()
      const over = await post(MAX_BODY_BYTES + 1)
      await over.arrayBuffer()
      expect(over.status).toBe(413)
      expect(over.headers.get('x-request-id'), 'answered by nginx, not a replica').toBeNull()
    } finally {
      await nginx.stop()
    }
  })
})
