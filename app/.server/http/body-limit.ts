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
 * Refuses request bodies over `maxBytes` before React Router reads them. With Content-Length the header
 * decides (Node never delivers more bytes than it announces); a chunked body is read here up to the
 * limit, then handed on to React Router as if unread. An oversized body is never read further: React Router gets
 * an empty one and `res.locals.bodyTooLarge` (the load context's `bodyTooLarge`), so that the page
 * answers 413 with the translated error page (guardForm in app/.server/policy/csrf.ts), and the connection closes.
 */
export function bodyLimit(maxBytes = MAX_BODY_BYTES): RequestHandler {
  return (req, res, next) => {
    const tooLarge = () => {
      res.locals.bodyTooLarge = true
      res.set('Connection', 'close')
      replay(req, Buffer.alloc(0))
      next()
    }
    const length = req.get('Content-Length')
    if (length !== undefined) return Number(length) > maxBytes ? tooLarge() : next()
    // React Router reads no body for GET and HEAD; Node discards it.
    if (!req.get('Transfer-Encoding') || req.method === 'GET' || req.method === 'HEAD') return next()

    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      stop()
      req.pause()
      tooLarge()
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
