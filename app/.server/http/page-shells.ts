import type express from 'express'
import { hasConsented } from '~/.server/preferences'
import { COOKIES, allNames } from '~/.server/cookies'
import { CSRF_FIELD } from '~/lib/form-fields'
import { cookiesBlockedInFrame, issueCsrf } from '~/.server/policy/csrf'
import { getFlags } from '~/.server/ops/flags'
import { getLocale } from '~/.server/i18n'
import { recordPageShell } from '~/.server/ops/metrics'
import { captchaSettings } from '~/.server/policy/recaptcha'

// A shell is the anonymous, query-less GET of a form page, rendered once per key with holes for the CSP nonce
// and the CSRF token. It is kept only after two renders agree byte for byte, and only for TTL_MS (see ADR 021).
const SHELL_PATHS = new Set(['/', '/forgot-password'])
export const SHELL_MODULES = ['app/root.tsx', 'app/routes/_index.tsx', 'app/routes/forgot-password.tsx']
// Why a shell may ignore what each server function reads. page-shells.test.ts fails
// when a new one is not listed, so a new page input cannot slip past the key.
export const SHELL_PAGE_INPUTS: Record<string, string> = {
  getLocale: 'in the key',
  hasConsented: 'in the key',
  cookiesBlockedInFrame: 'in the key (a frame that keeps the cookies shows the warning)',
  getFlags: 'in the key',
  captchaSettings: 'in the key (both forms\' settings)',
  issueCsrf: 'a hole, filled per request',
  getConfig: 'the process\'s own configuration',
  browserSentryConfig: 'the process\'s own configuration',
  ssoOffered: 'reads the flags, in the key',
  ssoProviderName: 'the process\'s own configuration',
  ssoProviderMark: 'the process\'s own configuration',
  sentView: 'no query on a shell request: nothing sent',
  resendable: 'posts only',
  resendSignInLink: 'posts only',
  pageSession: 'no session cookie on a shell request: always signed out, no cookie to clear',
  checkRedirectParam: 'no query on a shell request: no redirect',
  checkedRedirect: 'posts only',
  continueTarget: 'only for a signed-in visitor',
  signInPageError: 'no query on a shell request: no error',
  guardForm: 'posts only',
  signInWithPassword: 'posts only',
  postedCaptchaToken: 'posts only',
  sendSignInLink: 'posts only',
  requestPasswordReset: 'posts only',
  parseForm: 'posts only',
  page: 'the answer itself, from the inputs above',
  redirectTo: 'only for a signed-in visitor, or a post',
  errorPage: 'a method other than GET or POST only',
  unavailable: 'only when a session cookie was sent',
  respond: 'posts only',
}
const NEUTRAL_COOKIES = new Set(Object.values(COOKIES).flatMap((cookie) => (cookie.shellNeutral ? allNames(cookie) : [])))
const TTL_MS = 30_000
const MAX_SHELLS = 64

type Hole = 'nonce' | 'csrf'
interface Shell {
  parts: string[]
  holes: Hole[]
  headers: Array<[string, string | number | string[]]>
  storedAt: number
}

function cookieNames(header: string | undefined): string[] {
  if (!header) return []
  return header.split(';').map((part) => part.slice(0, Math.max(0, part.indexOf('='))).trim())
}

async function keyOf(req: express.Request, request: Request): Promise<string | null> {
  const url = new URL(request.url)
  if (req.method !== 'GET' || request.url !== `${url.origin}${url.pathname}` || !SHELL_PATHS.has(url.pathname)) return null
  if (!cookieNames(req.headers.cookie).every((name) => NEUTRAL_COOKIES.has(name))) return null
  const flags = await getFlags()
  const captcha = [captchaSettings('signInWithPassword'), captchaSettings('getOobCode')]
  return JSON.stringify([request.url, getLocale(request), hasConsented(request), flags, captcha, cookiesBlockedInFrame(request)])
}

function hollow(body: string, values: Record<Hole, string>): Pick<Shell, 'parts' | 'holes'> {
  const parts: string[] = []
  const holes: Hole[] = []
  const pattern = new RegExp(`${escape(values.nonce)}|${escape(values.csrf)}`, 'g')
  let from = 0
  for (const match of body.matchAll(pattern)) {
    parts.push(body.slice(from, match.index))
    holes.push(match[0] === values.nonce ? 'nonce' : 'csrf')
    from = match.index + match[0].length
  }
  parts.push(body.slice(from))
  return { parts, holes }
}

function fill(shell: Shell, values: Record<Hole, string>): string {
  let body = shell.parts[0] ?? ''
  for (let i = 0; i < shell.holes.length; i++) body += values[shell.holes[i]!] + shell.parts[i + 1]
  return body
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const same = (a: Pick<Shell, 'parts' | 'holes'>, b: Pick<Shell, 'parts' | 'holes'>) =>
  a.holes.join() === b.holes.join() && a.parts.length === b.parts.length && a.parts.every((p, i) => p === b.parts[i])

/** A render is kept only when it was rendered for the same URL the handler renders. */
export function pageShells(urlOf: (req: express.Request) => string): express.RequestHandler {
  const shells = new Map<string, Shell>()
  const candidates = new Map<string, Pick<Shell, 'parts' | 'holes'>>()

  return (req, res, next) => {
    if (res.locals.errorStatus || res.locals.bodyTooLarge) return next()
    const url = urlOf(req)
    const request = new Request(url, {
      headers: {
        cookie: req.headers.cookie ?? '',
        'accept-language': req.headers['accept-language'] ?? '',
        'sec-fetch-dest': String(req.headers['sec-fetch-dest'] ?? ''),
        'sec-fetch-site': String(req.headers['sec-fetch-site'] ?? ''),
      },
    })
    keyOf(req, request)
      .then((key) => {
        if (key === null) return next()
        const shell = shells.get(key)
        if (shell && Date.now() - shell.storedAt < TTL_MS) {
          recordPageShell('hit')
          const csrf = issueCsrf(request)
          res.status(200)
          for (const [name, value] of shell.headers) res.setHeader(name, value)
          if (csrf.setCookie) res.append('Set-Cookie', csrf.setCookie)
          res.end(fill(shell, { nonce: String(res.locals.cspNonce), csrf: csrf.token }))
          return
        }
        recordPageShell('miss')
        keep(req, res, (rendered, headers) => {
          if (res.locals.renderedUrl !== url) return
          const candidate = candidates.get(key)
          candidates.set(key, rendered)
          if (!candidate || !same(candidate, rendered)) return
          if (shells.size >= MAX_SHELLS) shells.delete(shells.keys().next().value!)
          shells.set(key, { ...rendered, headers, storedAt: Date.now() })
        })
        next()
      })
      .catch(next)
  }
}

function keep(
  req: express.Request,
  res: express.Response,
  done: (rendered: Pick<Shell, 'parts' | 'holes'>, headers: Shell['headers']) => void,
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
