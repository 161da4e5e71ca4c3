import { existsSync, readdirSync } from 'node:fs'
import express from 'express'

const COPIES = [
  { encoding: 'br', suffix: '.br' },
  { encoding: 'gzip', suffix: '.gz' },
] as const
type Copy = (typeof COPIES)[number]

// Serves the copy by pointing express.static at it, so ETag, HEAD, Range
// and caching stay its own. Pages are never compressed (see ADR 045).
export function precompressed(dir: string): express.RequestHandler {
  const files = new Set(existsSync(dir) ? readdirSync(dir) : [])
  const copiesOf = new Map<string, Copy[]>()
  for (const name of files) {
    const copies = COPIES.filter(({ suffix }) => files.has(`${name}${suffix}`))
    if (copies.length) copiesOf.set(`/${name}`, copies)
  }
  const { mime } = express.static
  return (req, res, next) => {
    const copies = copiesOf.get(req.path)
    if (!copies) return next()
    // Every answer for this URL depends on the header: a shared cache must keep them apart.
    res.vary('Accept-Encoding')
    const copy = copies.find(({ encoding }) => req.acceptsEncodings(encoding))
    if (copy) {
      // Else express.static would go by the copy's suffix.
      const type = mime.lookup(req.path)
      const charset = mime.charsets.lookup(type, '')
      res.set('Content-Type', charset ? `${type}; charset=${charset}` : type)
      res.set('Content-Encoding', copy.encoding)
      req.url = `${req.path}${copy.suffix}`
    }
    next()
  }
}

/** An error express.static hands on is answered in plain text, not in the copy's coding. */
export const plainErrors: express.ErrorRequestHandler = (err, _req, res, next) => {
  if (!res.headersSent) res.removeHeader('Content-Encoding')
  next(err)
}
