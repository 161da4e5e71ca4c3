import type express from 'express'
import { hasConsented } from '~/.server/preferences'
import { COOKIES, allNames } from '~/.server/cookies'
import { CSRF_FIELD } from '~/lib/form-fields'
import { cookiesBlockedInFrame, issueCsrf } from '~/.server/policy/csrf'
import { getFlags } from '~/.server/ops/flags'
import { getLocale } from '~/.server/i18n'
import { metrics } from '~/.server/ops/metrics'
import { captchaSettings } from '~/.server/identity/recaptcha'

// A shell is the anonymous, query-less GET of a form page, rendered once per key with holes for the CSP nonce
// and the CSRF token. It is kept only after two renders agree byte for byte, and only for TTL_MS (see ADR 021).
// The render a shell is made from sees only the key's inputs: the URL, these headers and the process's flags
// and captcha settings. Whatever a page reads, a shell never holds what one visitor sent for another.
const SHELL_PATHS = new Set(['/', '/forgot-password'])
const KEY_HEADERS = ['cookie', 'accept-language', 'sec-fetch-dest', 'sec-fetch-site'] as const
const NEUTRAL_COOKIES = new Set(Object.values(COOKIES).flatMap((cookie) => (cookie.shellNeutral ? allNames(cookie) : [])))
const TTL_MS = 30_000
const MAX_SHELLS = 64

type Hole = 'nonce' | 'csrf'
interface Shell {
  /** The page's text at even indexes, the hole between two of them at odd ones. */
  parts: string[]
  headers: Array<[string, string | number | string[]]>
  storedAt: number
}

function cookieNames(header: string | undefined): string[] {
  if (!header) return []
  return header.split(';').map((part) => part.slice(0, Math.max(0, part.indexOf('='))).trim())
}

async function keyOf(req: express.Request, request: Request): Promise<string | null> {
  const url = new URL(request.url)
  if (request.url !== `${url.origin}${url.pathname}` || !SHELL_PATHS.has(url.pathname)) return null
  if (!cookieNames(req.headers.cookie).every((name) => NEUTRAL_COOKIES.has(name))) return null
  const flags = await getFlags()
  const captcha = [captchaSettings('signInWithPassword'), captchaSettings('getOobCode')]
  return JSON.stringify([request.url, getLocale(request), hasConsented(request), flags, captcha, cookiesBlockedInFrame(request)])
}

function hollow(body: string, values: Record<Hole, string>): string[] {
  const pattern = new RegExp(`(${escape(values.nonce)}|${escape(values.csrf)})`)
  return body.split(pattern).map((part, i) => (i % 2 === 0 ? part : part === values.nonce ? 'nonce' : 'csrf'))
}

function fill(parts: string[], values: Record<Hole, string>): string {
  return parts.map((part, i) => (i % 2 === 0 ? part : values[part as Hole])).join('')
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const same = (a: string[], b: string[]) => a.length === b.length && a.every((part, i) => part === b[i])

/** A render is kept only when it was rendered for the same URL the handler renders. */
export function pageShells(urlOf: (req: express.Request) => string): express.RequestHandler {
  const shells = new Map<string, Shell>()
  const candidates = new Map<string, string[]>()

  return (req, res, next) => {
    if (res.locals.errorStatus || res.locals.bodyTooLarge) return next()
    const url = urlOf(req)
    const headers = Object.fromEntries(KEY_HEADERS.map((name) => [name, String(req.headers[name] ?? '')]))
    const request = new Request(url, { headers })
    keyOf(req, request)
      .then((key) => {
        if (key === null) return next()
        const shell = shells.get(key)
        if (shell && Date.now() - shell.storedAt < TTL_MS) {
          metrics.pageShells.inc({ outcome: 'hit' })
          const csrf = issueCsrf(request)
          res.status(200)
          for (const [name, value] of shell.headers) res.setHeader(name, value)
          if (csrf.setCookie) res.append('Set-Cookie', csrf.setCookie)
          res.end(fill(shell.parts, { nonce: String(res.locals.cspNonce), csrf: csrf.token }))
          return
        }
        metrics.pageShells.inc({ outcome: 'miss' })
        res.locals.shellHeaders = headers
        keep(req, res, (rendered, headers) => {
          if (res.locals.renderedUrl !== url) return
          const candidate = candidates.get(key)
          candidates.set(key, rendered)
          if (!candidate || !same(candidate, rendered)) return
          if (shells.size >= MAX_SHELLS) shells.delete(shells.keys().next().value!)
          shells.set(key, { parts: rendered, headers, storedAt: Date.now() })
        })
        next()
      })
      .catch(next)
  }
}

function keep(
  req: express.Request,
  res: express.Response,
  done: (rendered: string[], headers: Shell['headers']) => void,
) {
  const before = new Set(Object.keys(res.getHeaders()))
  const chunks: Buffer[] = []
  const copy = (chunk: unknown, encoding?: unknown) => {
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'))
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk))
  }
  const write = res.write.bind(res) as (...args: unknown[]) => boolean
  const end = res.end.bind(res) as (...args: unknown[]) => express.Response
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    copy(chunk, rest[0])
    return write(chunk, ...rest)
  }) as typeof res.write
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'function') copy(chunk, rest[0])
    return end(chunk, ...rest)
  }) as typeof res.end
  res.once('finish', () => {
    const type = String(res.getHeader('content-type') ?? '')
    if (res.statusCode !== 200 || !type.startsWith('text/html') || req.method !== 'GET') return
    const body = Buffer.concat(chunks).toString('utf8')
    const csrf = new RegExp(`name="${CSRF_FIELD}" value="([^"]+)"`).exec(body)?.[1]
    const nonce = String(res.locals.cspNonce ?? '')
    if (!csrf || !nonce) return
    const headers = Object.entries(res.getHeaders())
      .filter(([name, value]) => !before.has(name) && name !== 'set-cookie' && value !== undefined)
      .map(([name, value]) => [name, value] as [string, string | number | string[]])
    done(hollow(body, { nonce, csrf }), headers)
  })
}
