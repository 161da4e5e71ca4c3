/** The bounds a request meets before any route: its body (size, handed on to React Router) and its path. */

import type { RequestHandler } from 'express'

/** The forms are a few hundred bytes; anything near this is abuse. */
export const MAX_BODY_BYTES = 16 * 1024

// A refused body is still drained, within bounds: closing a connection with bytes unread
// resets it (RFC 9112 §9.6), and the reset can take the 413 with it (see ADR 060).
export const DRAIN_BYTES = 4 * MAX_BODY_BYTES
export const DRAIN_MS = 5_000

// An oversized body never reaches React Router: it gets an empty one and bodyTooLarge, so the page
// answers 413 translated (guardForm). A body read here is handed on as res.locals.body: the stream is spent.
export function bodyLimit({
  maxBytes = MAX_BODY_BYTES,
  drainBytes = DRAIN_BYTES,
  drainMs = DRAIN_MS,
}: { maxBytes?: number; drainBytes?: number; drainMs?: number } = {}): RequestHandler {
  return (req, res, next) => {
    const tooLarge = () => {
      res.locals.bodyTooLarge = true
      res.set('Connection', 'close')
      res.locals.body = Buffer.alloc(0)
      next()
    }
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
      res.locals.body = Buffer.concat(chunks)
      next()
    }
    const stop = () => {
      req.off('data', onData).off('end', onEnd).off('error', stop)
    }
    req.on('data', onData).on('end', onEnd).on('error', stop)
  }
}

// React Router's lazy route discovery costs the square of the path's segments (4,000 took most
// of a second). No route has more than two, so longer paths are not-found pages that never
// reach React Router (see ADR 016). No regular expressions: the input is the attacker's.

export const PATH_MAX_LENGTH = 1024
/** '\' counts too: URL parsers read it as '/'. */
export const PATH_MAX_SEGMENTS = 32

export const LONG_PATH_ROUTE = '/__path-too-long'
export const LONG_PATH_PARAM = 'shown'
export const LONG_PATH_SHOWN = 64

export const MANIFEST_MAX_PATHS = 32
export const MANIFEST_MAX_SEGMENTS = 64

export function segmentCount(path: string, limit = PATH_MAX_SEGMENTS): number {
  let count = 0
  for (let i = 0; i < path.length && count <= limit; i++) {
    const c = path.charCodeAt(i)
    if (c === 47 /* / */ || c === 92 /* \ */) count++
  }
  return count
}

export function pathWithinBounds(path: string): boolean {
  return path.length <= PATH_MAX_LENGTH && segmentCount(path) <= PATH_MAX_SEGMENTS
}

/** A `.data` request stays one, so the client gets the 404 it expects. */
export function longPathReplacement(path: string): string {
  const data = path.endsWith('.data') ? '.data' : ''
  return `${LONG_PATH_ROUTE}${data}?${LONG_PATH_PARAM}=${encodeURIComponent(path.slice(0, LONG_PATH_SHOWN))}`
}

/** Null when it asks about more paths or segments than a browser's discovery of a portal page's links. */
export function boundedManifestQuery(search: string): string | null {
  const params = new URLSearchParams(search)
  if (!params.has('paths')) return params.toString()
  const paths = (params.get('paths') ?? '').split(',').filter(Boolean)
  if (paths.length > MANIFEST_MAX_PATHS) return null
  let segments = 0
  const bounded = paths.map((p) => {
    const kept = pathWithinBounds(p) ? p : LONG_PATH_ROUTE
    segments += segmentCount(kept) + 1
    return kept
  })
  if (segments > MANIFEST_MAX_SEGMENTS) return null
  params.delete('paths')
  params.append('paths', [...new Set(bounded)].join(','))
  return params.toString()
}
