import { randomBytes } from 'node:crypto'
import type { AppLoadContext } from '@remix-run/node'
import { getConfig } from '~/.server/config'
import { clearCookie, isSecureOrigin, type SealedCookie } from '~/.server/cookies'
import { openForBrowser, sealForBrowser } from '~/.server/policy/csrf'
import { getFlags, type Flags } from '~/.server/ops/flags'
import {
  getIdentity,
  codeOf,
  groupOf,
  mfaRequiredOf,
  parseAuthDomain,
  type AuthCode,
  type IdentityClient,
  type MfaRequired,
} from '~/.server/identity'
import { logger } from '~/.server/ops/logger'
import { securityEvent } from '~/.server/ops/security-events'
import { resolveRedirect } from '~/.server/policy/redirect'
import { beginSecondFactor } from './second-factor'
import { signInWithIdToken } from './sign-in'

/**
 * Single sign-on, server side (ADR 011): POST /sso/start asks createAuthUri for the provider's
 * page and keeps the sessionId in a signed cookie; the provider comes back to /sso/callback,
 * which hands the answer to signInWithIdp with that sessionId, then ends like a password sign-in.
 */

export const CALLBACK_PATH = '/sso/callback'
/** Marks a callback relayed from the authDomain host to the public one, so it is relayed once. */
const RELAY_PARAM = 'portal_relay'
/** Marks a form_post answer posted again from our own page, so it is re-posted once. */
const REPOST_PARAM = 'portal_repost'
/** Where the emulator's fake provider page puts its answer (see emulatorAuthUri). */
const EMULATOR_PARAM = 'emulator'

/** The failures the sign-in page explains: `/?ssoError=<code>`. */
export const SSO_ERRORS = {
  cancelled: 'sso.cancelled',
  'account-exists': 'error.accountExists',
  disabled: 'error.accountDisabled',
  provider: 'sso.providerError',
  unavailable: 'sso.unavailable',
} as const
export type SsoError = keyof typeof SSO_ERRORS

/** The message for the sign-in page's `ssoError` parameter; anything else shows nothing. */
export function ssoErrorKey(value: string | null): (typeof SSO_ERRORS)[SsoError] | null {
  return value !== null && Object.hasOwn(SSO_ERRORS, value) ? SSO_ERRORS[value as SsoError] : null
}

/** Whether the sign-in page offers the button: the flag is on and a provider is configured. */
export function ssoOffered(flags: Flags): boolean {
  return flags.sso && getConfig().ssoProviderId !== null
}

export interface SsoState {
  sessionId: string
  /** The `redirect` to honour after sign-in, already accepted by the redirect policy. */
  redirect: string | null
  /** The origin the provider returns to: the public origin, or the authDomain's. */
  callbackOrigin: string
  /** Emulator only: ties the fake provider's answer to this browser (its eventId). */
  nonce: string
}

export interface SsoSettings {
  identity: Pick<IdentityClient, 'createAuthUri' | 'signInWithIdp'>
  providerId: string
  /** With the Auth emulator, its fake provider page stands in for createAuthUri's answer. */
  emulator: { origin: string; apiKey: string; tenantId: string | null } | null
}

/**
 * The `authDomain` override (seed section 2). Firebase's authDomain is the host that handles the
 * provider's return; here it is the host of our callback URL. Only a valid host name (parseAuthDomain)
 * that the redirect policy would accept (our origin, REDIRECT_ALLOWED_ORIGINS, an authorized domain)
 * is used; anything else is logged and ignored, so it can never send a credential elsewhere.
 */
export async function callbackOriginFor(raw: string | null, publicOrigin: string): Promise<string> {
  if (raw === null || raw === '') return publicOrigin
  const host = parseAuthDomain(raw)
  if (host === null) {
    logger.warn({ event: 'auth-domain-invalid' }, 'authDomain ignored: not a host name')
    return publicOrigin
  }
  const candidate = `${new URL(publicOrigin).protocol}//${host}`
  const check = await resolveRedirect(`${candidate}/`, publicOrigin)
  if (check.kind !== 'ok') {
    logger.warn({ event: 'auth-domain-refused', authDomain: host }, 'authDomain ignored: not an allowed host')
    return publicOrigin
  }
  return new URL(check.url).origin
}

/**
 * In emulator mode the provider's page is the emulator's own (`/emulator/auth/handler`); createAuthUri
 * has no provider support there. That page hands its fake credential back only through the iOS
 * deep-link format, `<ibi>://google/link?deep_link_id=<url>`, so `ibi` is our callback with an open
 * query parameter: the browser lands on `/sso/callback?emulator=://google/link?deep_link_id=…`.
 */
export function emulatorAuthUri(
  settings: SsoSettings & { emulator: NonNullable<SsoSettings['emulator']> },
  callbackOrigin: string,
  nonce: string,
): string {
  const url = new URL('/emulator/auth/handler', settings.emulator.origin)
  url.searchParams.set('apiKey', settings.emulator.apiKey)
  url.searchParams.set('providerId', settings.providerId)
  url.searchParams.set('authType', 'signInViaRedirect')
  url.searchParams.set('eventId', nonce)
  url.searchParams.set('ibi', `${callbackOrigin}${CALLBACK_PATH}?${EMULATOR_PARAM}=`)
  if (settings.emulator.tenantId) url.searchParams.set('tid', settings.emulator.tenantId)
  return url.href
}

/** The first step: the provider's URL and the state to keep in the browser. */
export async function beginSso(
  input: { redirect: string | null; callbackOrigin: string },
  settings: SsoSettings,
): Promise<{ authUri: string; state: SsoState }> {
  const nonce = randomBytes(16).toString('base64url')
  const continueUri = `${input.callbackOrigin}${CALLBACK_PATH}`
  if (settings.emulator) {
    return {
      authUri: emulatorAuthUri({ ...settings, emulator: settings.emulator }, input.callbackOrigin, nonce),
      state: { sessionId: nonce, redirect: input.redirect, callbackOrigin: input.callbackOrigin, nonce },
    }
  }
  const answer = await settings.identity.createAuthUri({ providerId: settings.providerId, continueUri })
  const authUri = answer.authUri ? safeProviderUrl(answer.authUri) : null
  if (!authUri || !answer.sessionId) throw new Error('createAuthUri gave no authUri or sessionId')
  return {
    authUri,
    state: { sessionId: answer.sessionId, redirect: input.redirect, callbackOrigin: input.callbackOrigin, nonce },
  }
}

/** The provider's page must be an https URL (it goes into a Refresh header and a link). */
function safeProviderUrl(value: string): string | null {
  try {
    const url = new URL(value)
    return url.protocol === 'https:' && !/[\s"<>]/.test(value) ? url.href : null
  } catch {
    return null
  }
}

export type SsoFinish =
  | { ok: true; idToken: string; email: string | null }
  /** The provider signed in, and the account has a second factor to ask for (ADR 022). */
  | { ok: true; mfa: MfaRequired; email: string | null }
  | { ok: false; error: SsoError; code?: AuthCode }

/**
 * The provider came back: its answer (the callback's query, or the POST body for form_post
 * providers) goes to signInWithIdp with the sessionId from the state cookie.
 */
export async function finishSso(
  input: { search: URLSearchParams; postBody: string | null; state: SsoState | null },
  settings: SsoSettings,
): Promise<SsoFinish> {
  const { state } = input
  if (!state) return { ok: false, error: 'cancelled' }
  const answer = new URLSearchParams(input.postBody ?? '')
  const providerError = input.search.get('error') ?? answer.get('error')
  if (providerError !== null) return { ok: false, error: providerError === 'access_denied' ? 'cancelled' : 'provider' }

  let requestUri: string
  if (settings.emulator && input.search.has(EMULATOR_PARAM)) {
    const fromEmulator = emulatorAnswer(input.search.get(EMULATOR_PARAM) ?? '', settings.emulator.origin, state.nonce)
    if (!fromEmulator) return { ok: false, error: 'cancelled' }
    requestUri = fromEmulator
  } else {
    const search = new URLSearchParams(input.search)
    search.delete(RELAY_PARAM)
    search.delete(REPOST_PARAM)
    requestUri = `${state.callbackOrigin}${CALLBACK_PATH}${search.size ? `?${search}` : ''}`
  }
  try {
    const result = await settings.identity.signInWithIdp({
      requestUri,
      sessionId: state.sessionId,
      ...(input.postBody ? { postBody: input.postBody } : {}),
    })
    return { ok: true, idToken: result.idToken, email: result.email }
  } catch (error) {
    const mfa = mfaRequiredOf(error)
    if (mfa) return { ok: true, mfa, email: mfa.email }
    const code: AuthCode = codeOf(error)
    return { ok: false, error: errorFor(code), code }
  }
}

function errorFor(code: AuthCode): SsoError {
  if (code === 'auth/user-disabled') return 'disabled'
  switch (groupOf(code)) {
    case 'account-exists':
      return 'account-exists'
    case 'unavailable':
    case 'throttled':
      return 'unavailable'
    default:
      return 'provider'
  }
}

/**
 * The fake provider's answer in the deep-link format: `://google/link?deep_link_id=<url>`, where
 * url is `<emulator>/__/auth/callback?link=<the handler URL with the fake id_token>&eventId=…`.
 * Accepted only from the configured emulator, with the eventId this browser was given.
 */
function emulatorAnswer(value: string, emulatorOrigin: string, nonce: string): string | null {
  const marker = 'deep_link_id='
  const at = value.indexOf(marker)
  if (at < 0) return null
  try {
    const deepLink = new URL(value.slice(at + marker.length))
    const link = new URL(deepLink.searchParams.get('link') ?? '')
    if (deepLink.origin !== emulatorOrigin || link.origin !== emulatorOrigin) return null
    if (link.pathname !== '/emulator/auth/handler' || deepLink.searchParams.get('eventId') !== nonce) return null
    return link.href
  } catch {
    return null
  }
}

// ---- The process's settings, cookies and the two route handlers -------------------------------

/** Null when single sign-on is off (flag) or no provider is configured. */
export async function ssoSettings(): Promise<SsoSettings | null> {
  const config = getConfig()
  if (!config.ssoProviderId || !(await getFlags()).sso) return null
  const { emulatorOrigin, apiKey, tenantId } = config.identity
  return {
    identity: getIdentity(),
    providerId: config.ssoProviderId,
    emulator: emulatorOrigin ? { origin: emulatorOrigin, apiKey, tenantId } : null,
  }
}

/**
 * The pending sign-in, sealed to this browser (ADR 017): a state planted from another browser is
 * refused. SameSite=None over https: a form_post provider returns with a cross-site POST, which
 * would not carry a Lax cookie.
 */
const stateCookie = (): SealedCookie => ({
  name: 'sso_state',
  purpose: 'sso-state',
  maxAge: 10 * 60,
  sameSite: isSecureOrigin() ? 'None' : 'Lax',
})

export function clearStateCookie(): string {
  return clearCookie(stateCookie())
}

function readState(request: Request): SsoState | null {
  const value = openForBrowser(request, stateCookie())
  if (!value) return null
  try {
    const state = JSON.parse(value) as Partial<SsoState>
    if (
      typeof state.sessionId !== 'string' ||
      typeof state.callbackOrigin !== 'string' ||
      typeof state.nonce !== 'string'
    )
      return null
    return {
      sessionId: state.sessionId,
      callbackOrigin: state.callbackOrigin,
      nonce: state.nonce,
      redirect: typeof state.redirect === 'string' ? state.redirect : null,
    }
  } catch {
    return null
  }
}

/** The sign-in page with a message, keeping the redirect the visitor came with. */
export function signInPageWithError(error: SsoError, redirect: string | null): string {
  const params = new URLSearchParams({ ssoError: error })
  if (redirect) params.set('redirect', redirect)
  return `/?${params}`
}

export type StartOutcome = { ok: true; authUri: string; setCookies: string[] } | { ok: false; location: string }

/** POST /sso/start, after the CSRF check. */
export async function startSso(
  request: Request,
  input: { redirect: string | null; authDomain: string | null },
  context: AppLoadContext,
): Promise<StartOutcome> {
  const settings = await ssoSettings()
  const target = await resolveRedirect(input.redirect, context.publicOrigin)
  const redirect = target.kind === 'ok' ? input.redirect : null
  if (!settings) return { ok: false, location: signInPageWithError('unavailable', redirect) }
  const callbackOrigin = await callbackOriginFor(input.authDomain, context.publicOrigin)
  try {
    const { authUri, state } = await beginSso({ redirect, callbackOrigin }, settings)
    return { ok: true, authUri, setCookies: sealForBrowser(request, stateCookie(), JSON.stringify(state)) }
  } catch (error) {
    const code = codeOf(error)
    logger.warn({ event: 'sso-start-failed', code, reqId: context.requestId }, 'single sign-on could not start')
    return {
      ok: false,
      location: signInPageWithError(code === 'auth/network-request-failed' ? 'unavailable' : 'provider', redirect),
    }
  }
}

/**
 * GET or POST /sso/callback. Always a redirect: into the session, back to the sign-in page with
 * a message, or (once) from the authDomain host to the public origin, which holds the state cookie.
 */
export type CallbackOutcome =
  | { location: string; status: 303 | 307; setCookies: string[] }
  /** A form_post answer to post again from our own page (see handleSsoCallback). */
  | { repost: { action: string; fields: [string, string][] } }

export async function handleSsoCallback(request: Request, context: AppLoadContext): Promise<CallbackOutcome> {
  const url = new URL(request.url)
  const state = readState(request)
  const settings = await ssoSettings()
  const publicHost = new URL(context.publicOrigin).host
  if (settings && !state && url.host !== publicHost && !url.searchParams.has(RELAY_PARAM)) {
    // The authDomain host has no state cookie (host-only): hand over to the public origin, once.
    // Never an open redirect: the target is always our own public origin.
    const search = new URLSearchParams(url.search)
    search.set(RELAY_PARAM, '1')
    return {
      location: `${context.publicOrigin}${CALLBACK_PATH}?${search}`,
      status: request.method === 'POST' ? 307 : 303,
      setCookies: [],
    }
  }

  const postBody = request.method === 'POST' ? await request.text() : null
  if (postBody !== null && !state && settings && !url.searchParams.has(REPOST_PARAM)) {
    // A form_post provider posts cross-site, so the browser withholds the Lax cookie the state is
    // bound to: our own page posts the answer again, same-site, once; the binding then decides.
    const search = new URLSearchParams(url.search)
    search.set(REPOST_PARAM, '1')
    return { repost: { action: `${CALLBACK_PATH}?${search}`, fields: [...new URLSearchParams(postBody)] } }
  }
  const finish: SsoFinish = settings
    ? await finishSso({ search: url.searchParams, postBody, state }, settings)
    : { ok: false, error: 'unavailable' }
  const redirect = state?.redirect ?? null
  if (!finish.ok) {
    securityEvent('sign-in-failure', {
      reqId: context.requestId,
      ip: context.clientIp,
      method: 'sso',
      reason: finish.error,
      code: finish.code,
    })
    return { location: signInPageWithError(finish.error, redirect), status: 303, setCookies: [clearStateCookie()] }
  }
  if ('mfa' in finish) {
    const step = await beginSecondFactor(
      request,
      { mfa: finish.mfa, method: 'sso', email: finish.email, redirect },
      context,
    )
    return { location: step.location, status: 303, setCookies: [...step.setCookies, clearStateCookie()] }
  }
  try {
    const session = await signInWithIdToken(finish.idToken, { email: finish.email, method: 'sso', redirect }, context)
    return { location: session.location, status: 303, setCookies: [...session.setCookies, clearStateCookie()] }
  } catch {
    return { location: signInPageWithError('unavailable', redirect), status: 303, setCookies: [clearStateCookie()] }
  }
}
