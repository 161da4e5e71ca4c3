import type express from 'express'
import { hasConsented } from '~/.server/preferences'
import { COOKIES, allNames } from '~/.server/cookies'
import { CSRF_FIELD } from '~/lib/form-fields'
import { cookiesBlockedInFrame, issueCsrf } from '~/.server/policy/csrf'
import { getFlags } from '~/.server/ops/flags'
import { getLocale } from '~/.server/i18n'
import { recordPageShell } from '~/.server/ops/metrics'
import { captchaSettings } from '~/.server/policy/recaptcha'

/**
 * Page shells (ADR 021): the anonymous, query-less GET of a form page is the same bytes for every
 * visitor of one language, consent state and set of flags, but for the CSP nonce and the CSRF
 * token. Rendered by React Router once per such key, the page is kept with holes where those two stand
 * and filled per request, which skips route matching, loaders, React and data encoding.
 *
 * - Only GET of SHELL_PATHS without a query string, carrying no cookie but NEUTRAL_COOKIES: a
 *   session, a pending flow, an action, a query or an error is always rendered afresh.
 * - The key is explicit: path, locale, consent, flag values, what reCAPTCHA the forms load, a frame
 *   whose cookies are blocked (the build is the process's own).
 * - A shell is kept only once two fresh renders for its key agree byte for byte, and for TTL_MS:
 *   any state the key does not name can change a page for at most that long.
 * - The headers are React Router's own from the render, with the request's CSP (set before, with its
 *   nonce) and, when the visitor has no CSRF cookie yet, the Set-Cookie minting one.
 */
const SHELL_PATHS = new Set(['/', '/forgot-password'])
/** The modules a shell is rendered from: the document and the shell paths' routes. */
export const SHELL_MODULES = ['app/root.tsx', 'app/routes/_index.tsx', 'app/routes/forgot-password.tsx']
/**
 * Every server function those modules import, and why a shell may ignore what it reads: it is in
 * the key, it is the process's own, or a shell request never reaches it. A test
 * (page-shells.test.ts) fails when one of them imports a function this list does not name, so a new
 * page input cannot slip past the key unnoticed.
 */
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
  pageSession: 'no session cookie on a shell request: always signed out, no cookie to clear',
  checkRedirectParam: 'no query on a shell request: no redirect',
  checkedRedirect: 'posts only',
  defaultRedirect: 'only for a signed-in visitor',
  signInPageError: 'no query on a shell request: no error',
  guardForm: 'posts only',
  signInWithPassword: 'posts only',
  postedCaptchaToken: 'posts only',
  sendSignInLink: 'posts only',
  requestPasswordReset: 'posts only',
  parseForm: 'posts only',
  page: 'the answer itself, from the inputs above',
  redirectTo: 'only for a signed-in visitor, or a post',
  unavailable: 'only when a session cookie was sent',
  respond: 'posts only',
}
const NEUTRAL_COOKIES = new Set(Object.values(COOKIES).flatMap((cookie) => (cookie.shellNeutral ? allNames(cookie) : [])))
const TTL_MS = 30_000
const MAX_SHELLS = 64

type Hole = 'nonce' | 'csrf'
interface Shell {
  /** Text between the holes: parts[i], holes[i], parts[i + 1], … */
  parts: string[]
  holes: Hole[]
  headers: Array<[string, string | number | string[]]>
  storedAt: number
}

function cookieNames(header: string | undefined): string[] {
  if (!header) return []
  return header.split(';').map((part) => part.slice(0, Math.max(0, part.indexOf('='))).trim())
}

/**
 * The shell's key for this request, or null when it must be rendered afresh. The key starts with
 * the very URL React Router is handed (ADR 026): its path and nothing else, no query, no fragment.
 */
async function keyOf(req: express.Request, request: Request): Promise<string | null> {
  const url = new URL(request.url)
  if (req.method !== 'GET' || request.url !== `${url.origin}${url.pathname}` || !SHELL_PATHS.has(url.pathname)) return null
  if (!cookieNames(req.headers.cookie).every((name) => NEUTRAL_COOKIES.has(name))) return null
  const flags = await getFlags()
  // What the protected forms load for reCAPTCHA (ADR 020): its site key and script, or nothing.
  const captcha = [captchaSettings('signInWithPassword'), captchaSettings('getOobCode')]
  return JSON.stringify([request.url, getLocale(request), hasConsented(request), flags, captcha, cookiesBlockedInFrame(request)])
}

/** The page with its two per-request values replaced by holes. */
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

/**
 * The middleware, placed just before the React Router handler. `urlOf` is the URL that handler renders a
 * request for (router-handler.ts); a render is kept only when it was rendered for that same URL.
 */
export function pageShells(urlOf: (req: express.Request) => string): express.RequestHandler {
  const shells = new Map<string, Shell>()
  const candidates = new Map<string, Pick<Shell, 'parts' | 'holes'>>()

  return (req, res, next) => {
    // A request refused before React Router (app/.server/http/app.ts) is rendered as its error page.
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

/**
 * Copies what React Router writes for this response and, when it is a complete 200 page, hands over its
 * hollowed text and the headers React Router set (Set-Cookie aside).
 */
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
