import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startLoopbackIdentity } from './emulator-relay'

/**
 * What the Firebase Auth emulator cannot do: reCAPTCHA Enterprise. Two loopback servers for the
 * tests (ADR 020):
 * - an identity service that answers `v2/recaptchaConfig` with the state it is given and, under
 *   ENFORCE, refuses a sign-in, a sign-up or an email request without a token bound to the right action
 *   (as Identity Platform does), then forwards the call, tokens removed, to the real emulator;
 * - a stub of Google's `enterprise.js`, served as RECAPTCHA_SCRIPT_URL, whose
 *   `grecaptcha.enterprise.execute(siteKey, { action })` answers `token-for-<action>.<n>`.
 */

export type Enforcement = 'OFF' | 'AUDIT' | 'ENFORCE'
export const SITE_KEY = 'SITEKEY123'

export interface SeenCall {
  call: 'signInWithPassword' | 'signUp' | 'sendOobCode'
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
  const loopback = await startLoopbackIdentity(options.emulatorOrigin, async ({ path, body, answer, forward, relay }) => {
    const fail = (message: string) => answer(400, { error: { code: 400, message, errors: [{ message, reason: 'invalid' }] } })
    if (path.endsWith('/v2/recaptchaConfig')) {
      return answer(200, {
        recaptchaKey: `projects/demo/keys/${SITE_KEY}`,
        recaptchaEnforcementState: [
          { provider: 'EMAIL_PASSWORD_PROVIDER', enforcementState: state },
          { provider: 'PHONE_PROVIDER', enforcementState: 'OFF' },
        ],
      })
    }
    const call = path.endsWith('accounts:signInWithPassword')
      ? 'signInWithPassword'
      : path.endsWith('accounts:signUp')
        ? 'signUp'
        : path.endsWith('accounts:sendOobCode')
          ? 'sendOobCode'
          : null
    if (!call) return
    const protectedCall = call !== 'sendOobCode' || ['PASSWORD_RESET', 'EMAIL_SIGNIN'].includes(String(body.requestType))
    // As Firebase's own SDK sends them: captchaResponse for a sign-in or sign-up, captchaResp for getOobCode.
    const field = call === 'sendOobCode' ? 'captchaResp' : 'captchaResponse'
    const action = call === 'sendOobCode' ? 'getOobCode' : call === 'signUp' ? 'signUpPassword' : 'signInWithPassword'
    const token = typeof body[field] === 'string' ? (body[field] as string) : null
    let refused: string | null = null
    if (protectedCall && state === 'ENFORCE') {
      if (!token) refused = 'MISSING_RECAPTCHA_TOKEN'
      else if (body.recaptchaVersion !== 'RECAPTCHA_ENTERPRISE') refused = 'MISSING_RECAPTCHA_VERSION'
      else if (body.clientType !== 'CLIENT_TYPE_WEB') refused = 'INVALID_REQ_TYPE'
      else if (!token.startsWith(`token-for-${action}.`)) refused = 'INVALID_RECAPTCHA_ACTION'
      else if (refuseNext) refused = 'INVALID_RECAPTCHA_TOKEN'
    }
    if (token) refuseNext = false
    seen.push({ call, token, clientType: body.clientType, recaptchaVersion: body.recaptchaVersion, refused })
    if (refused) return fail(refused)
    // The emulator has no reCAPTCHA (it answers 501 to a token): it gets the call without one.
    const withoutToken = { ...body }
    for (const name of ['captchaResponse', 'captchaResp', 'recaptchaVersion']) delete withoutToken[name]
    relay(await forward(withoutToken))
  })
  return {
    host: loopback.host,
    seen,
    setState: (next) => (state = next),
    stop: () => loopback.close(),
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
