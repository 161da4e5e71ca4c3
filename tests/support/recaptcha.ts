import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * What the Firebase Auth emulator cannot do: reCAPTCHA Enterprise. Two loopback servers for the
 * tests (ADR 020):
 * - an identity service that answers `v2/recaptchaConfig` with the state it is given and, under
 *   ENFORCE, refuses a sign-in or an email request without a token bound to the right action
 *   (as Identity Platform does), then forwards the call, tokens removed, to the real emulator;
 * - a stub of Google's `enterprise.js`, served as RECAPTCHA_SCRIPT_URL, whose
 *   `grecaptcha.enterprise.execute(siteKey, { action })` answers `token-for-<action>.<n>`.
 */

export type Enforcement = 'OFF' | 'AUDIT' | 'ENFORCE'
export const SITE_KEY = 'SITEKEY123'

export interface SeenCall {
  call: 'signInWithPassword' | 'sendOobCode'
  token: string | null
  clientType: unknown
  recaptchaVersion: unknown
  /** What the service answered about the token: null when it let the call through. */
  refused: string | null
}

export interface RecaptchaService {
  /** `127.0.0.1:PORT`, for FIREBASE_AUTH_EMULATOR_HOST */
  host: string
  seen: SeenCall[]
  setState(state: Enforcement): void
  stop(): Promise<void>
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    req.on('data', (c: Buffer) => (text += c.toString()))
    req.on('end', () => resolve(text))
  })
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return (server.address() as AddressInfo).port
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
}

/**
 * `refuseFirstToken`: the first token the service sees is answered INVALID_RECAPTCHA_TOKEN (as a
 * token that expired, or that scored too low), every later one is judged as usual.
 */
export async function startRecaptchaService(options: {
  emulatorOrigin: string
  state: Enforcement
  refuseFirstToken?: boolean
}): Promise<RecaptchaService> {
  let state = options.state
  let refuseNext = options.refuseFirstToken === true
  const seen: SeenCall[] = []
  const server = createServer(async (req, res) => {
    const url = req.url ?? '/'
    const text = await body(req)
    const fail = (message: string) =>
      res
        .writeHead(400, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ error: { code: 400, message, errors: [{ message, reason: 'invalid' }] } }))
    if (url.includes('/v2/recaptchaConfig')) {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          recaptchaKey: `projects/demo/keys/${SITE_KEY}`,
          recaptchaEnforcementState: [
            { provider: 'EMAIL_PASSWORD_PROVIDER', enforcementState: state },
            { provider: 'PHONE_PROVIDER', enforcementState: 'OFF' },
          ],
        }),
      )
      return
    }
    let forward = text
    const call = url.includes('accounts:signInWithPassword')
      ? 'signInWithPassword'
      : url.includes('accounts:sendOobCode')
        ? 'sendOobCode'
        : null
    if (call) {
      const json = JSON.parse(text) as Record<string, unknown>
      const protectedCall = call === 'signInWithPassword' || ['PASSWORD_RESET', 'EMAIL_SIGNIN'].includes(String(json.requestType))
      // As Firebase's own SDK sends them: captchaResponse for a sign-in, captchaResp for getOobCode.
      const field = call === 'signInWithPassword' ? 'captchaResponse' : 'captchaResp'
      const action = call === 'signInWithPassword' ? 'signInWithPassword' : 'getOobCode'
      const token = typeof json[field] === 'string' ? (json[field] as string) : null
      let refused: string | null = null
      if (protectedCall && state === 'ENFORCE') {
        if (!token) refused = 'MISSING_RECAPTCHA_TOKEN'
        else if (json.recaptchaVersion !== 'RECAPTCHA_ENTERPRISE') refused = 'MISSING_RECAPTCHA_VERSION'
        else if (json.clientType !== 'CLIENT_TYPE_WEB') refused = 'INVALID_REQ_TYPE'
        else if (!token.startsWith(`token-for-${action}.`)) refused = 'INVALID_RECAPTCHA_ACTION'
        else if (refuseNext) refused = 'INVALID_RECAPTCHA_TOKEN'
      }
      if (token) refuseNext = false
      seen.push({ call, token, clientType: json.clientType, recaptchaVersion: json.recaptchaVersion, refused })
      if (refused) return fail(refused)
      // The emulator has no reCAPTCHA (it answers 501 to a token): it gets the call without one.
      delete json.captchaResponse
      delete json.captchaResp
      delete json.recaptchaVersion
      forward = JSON.stringify(json)
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)),
    ) as Record<string, string>
    try {
      const answer = await fetch(`${options.emulatorOrigin}${url}`, {
        method: req.method,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : forward,
      })
      res.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'application/json' })
      res.end(Buffer.from(await answer.arrayBuffer()))
    } catch {
      res.writeHead(502).end()
    }
  })
  const port = await listen(server)
  return {
    host: `127.0.0.1:${port}`,
    seen,
    setState: (next) => (state = next),
    stop: () => close(server),
  }
}

export interface RecaptchaScriptStub {
  /** e.g. `http://127.0.0.1:PORT/recaptcha/enterprise.js`, for RECAPTCHA_SCRIPT_URL */
  url: string
  origin: string
  /** The query string of every request for the script (`render=SITE_KEY`). */
  requests: string[]
  stop(): Promise<void>
}

/**
 * A stand-in for Google's enterprise.js: `grecaptcha.enterprise.ready(fn)` and
 * `execute(siteKey, { action })`, which refuses a site key other than the one it was loaded with.
 */
export async function startRecaptchaScriptStub(): Promise<RecaptchaScriptStub> {
  const requests: string[] = []
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub')
    if (url.pathname !== '/recaptcha/enterprise.js') return res.writeHead(404).end()
    requests.push(url.search)
    const siteKey = url.searchParams.get('render') ?? ''
    const script = `(function () {
  var count = 0
  var siteKey = ${JSON.stringify(siteKey)}
  window.grecaptcha = { enterprise: {
    ready: function (fn) { setTimeout(fn, 0) },
    execute: function (key, options) {
      if (key !== siteKey) return Promise.reject(new Error('unknown site key'))
      count += 1
      return Promise.resolve('token-for-' + options.action + '.' + count)
    }
  } }
})()
`
    res.writeHead(200, { 'Content-Type': 'text/javascript', 'Cache-Control': 'no-store' }).end(script)
  })
  const port = await listen(server)
  const origin = `http://127.0.0.1:${port}`
  return { url: `${origin}/recaptcha/enterprise.js`, origin, requests, stop: () => close(server) }
}
