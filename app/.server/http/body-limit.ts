import { Readable } from 'node:stream'
import type { RequestHandler } from 'express'

/** The portal's forms are a few hundred bytes; anything near this is abuse, not a sign-in. */
export const MAX_BODY_BYTES = 16 * 1024

/**
 * The stream methods React Router (and anyone after it) uses to read a request body. Not `destroy`:
 * Node destroys the spent request right after its 'end', which must not take the replay along.
 */
const STREAM_METHODS = [
  'on',
  'once',
  'off',
  'addListener',
  'removeListener',
  'prependListener',
  'removeAllListeners',
  'pause',
  'resume',
  'isPaused',
  'read',
  'pipe',
  'unpipe',
  Symbol.asyncIterator,
] as const

/**
 * A refused body is still read, and thrown away, up to this many bytes in all (four times the limit: twice
 * the 32 KB deploy/nginx.conf used to admit) and for at most DRAIN_MS: closing a connection with request
 * bytes unread, or still arriving, resets it (RFC 9112 §9.6), and the reset can take the 413 with it (a proxy
 * then answers 502 and sets the replica aside). ADR 060.
 */
export const DRAIN_BYTES = 4 * MAX_BODY_BYTES
export const DRAIN_MS = 5_000

export interface BodyLimitOptions {
  maxBytes?: number
  drainBytes?: number
  drainMs?: number
}

/**
 * Refuses request bodies over `maxBytes` before React Router reads them. With Content-Length the header
 * decides (Node never delivers more bytes than it announces); a chunked body is read here up to the
 * limit, then handed on to React Router as if unread. An oversized body never reaches React Router: it gets
 * an empty one and `res.locals.bodyTooLarge` (the load context's `bodyTooLarge`), so that the page
 * answers 413 with the translated error page (guardForm in app/.server/policy/csrf.ts), and the connection closes.
 *
 * Before that answer, the rest of the body is drained (read and discarded) while it stays within `drainBytes`
 * and `drainMs`, so that the connection closes cleanly. A body announced beyond `drainBytes` is refused at
 * once, and one that outgrows it or the time limit is refused where it stands: those connections may still reset.
 */
export function bodyLimit({
  maxBytes = MAX_BODY_BYTES,
  drainBytes = DRAIN_BYTES,
  drainMs = DRAIN_MS,
}: BodyLimitOptions = {}): RequestHandler {
  return (req, res, next) => {
    const tooLarge = () => {
      res.locals.bodyTooLarge = true
      res.set('Connection', 'close')
      replay(req, Buffer.alloc(0))
      next()
    }
    /** Reads and discards the rest of the body (`read` bytes of it were read already), then refuses it. */
    const drainThenRefuse = (read: number) => {
      let size = read
      let settled = false
      const settle = (answer: boolean) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        req.off('data', onData).off('end', onEnd).off('error', onError)
        if (!answer) return
        // Whatever is left unread stays so: the connection closes after the answer.
        req.pause()
        tooLarge()
      }
      const onData = (chunk: Buffer) => {
        size += chunk.length
        if (size > drainBytes) settle(true)
      }
      const onEnd = () => settle(true)
      // The client went away: there is no one to answer.
      const onError = () => settle(false)
      const timer = setTimeout(() => settle(true), drainMs)
      req.on('data', onData).on('end', onEnd).on('error', onError)
      req.resume()
    }
    const length = req.get('Content-Length')
    if (length !== undefined) {
      const announced = Number(length)
      if (!(announced > maxBytes)) return next()
      return announced > drainBytes ? tooLarge() : drainThenRefuse(0)
    }
    // React Router reads no body for GET and HEAD; Node discards it.
    if (!req.get('Transfer-Encoding') || req.method === 'GET' || req.method === 'HEAD') return next()

    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      stop()
      drainThenRefuse(size)
    }
    const onEnd = () => {
      stop()
      replay(req, Buffer.concat(chunks))
      next()
    }
    // Also on 'error': the client went away and there is no one to answer.
    const stop = () => {
      req.off('data', onData).off('end', onEnd).off('error', stop)
    }
    req.on('data', onData).on('end', onEnd).on('error', stop)
  }
}

/**
 * The request's own stream has been read to its end and cannot be rewound, so its reading
 * methods are pointed at a fresh stream of the same bytes.
 */
function replay(req: Readable, body: Buffer) {
  const stream = Readable.from([body], { objectMode: false })
  for (const method of STREAM_METHODS) {
    const fn = stream[method] as (...args: unknown[]) => unknown
    Object.defineProperty(req, method, { value: fn.bind(stream), configurable: true, writable: true })
  }
  Object.defineProperty(req, 'readable', { get: () => stream.readable, configurable: true })
}
