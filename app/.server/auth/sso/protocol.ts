import { randomBytes } from 'node:crypto'
import {
  codeOf,
  groupOf,
  mfaRequiredOf,
  parseAuthDomain,
  type AuthCode,
  type IdentityClient,
  type MfaRequired,
} from '~/.server/identity'
import { logger } from '~/.server/ops/logger'
import { checkedRedirect } from '~/.server/policy/redirect'
import type { Confirming } from '../second-factor/pending'
import type { SsoError } from '../sign-in-page'

/**
 * Single sign-on, server side (ADR 011): POST /sso/start asks createAuthUri for the provider's
 * page and keeps the sessionId in a signed cookie; the provider comes back to /sso/callback,
 * which hands the answer to signInWithIdp with that sessionId, then ends like a password sign-in.
 * This module is the protocol (and the emulator's stand-in for a provider); ./state-cookie keeps
 * the state in the browser and ./handlers answers the two routes.
 */

export const CALLBACK_PATH = '/sso/callback'
/** Marks a callback relayed from the authDomain host to the public one, so it is relayed once. */
export const RELAY_PARAM = 'portal_relay'
/** Marks a form_post answer posted again from our own page, so it is re-posted once. */
export const REPOST_PARAM = 'portal_repost'
/** Where the emulator's fake provider page puts its answer (see emulatorAuthUri). */
const EMULATOR_PARAM = 'emulator'

export interface SsoState {
  sessionId: string
  /** The `redirect` to honour after sign-in, already accepted by the redirect policy. */
  redirect: string | null
  /** The origin the provider returns to: the public origin, or the authDomain's. */
  callbackOrigin: string
  /** Emulator only: ties the fake provider's answer to this browser (its eventId). */
  nonce: string
  /** "Keep me signed in", as chosen on the sign-in form (ADR 037). */
  remember: boolean
  /**
   * Set when the round trip is "Confirm it's you" for the signed-in account `uid` (ADR 043): the
   * callback seals the fresh token for this browser instead of making a session.
   */
  confirm: Confirming | null
}

/** What the start carries to the callback, in the state cookie. */
export type SsoIntent = Pick<SsoState, 'redirect' | 'callbackOrigin' | 'remember' | 'confirm'>

export interface SsoSettings {
  identity: Pick<IdentityClient, 'createAuthUri' | 'signInWithIdp'>
  providerId: string
  /** With the Auth emulator, its fake provider page stands in for createAuthUri's answer. */
  emulator: { origin: string; apiKey: string; tenantId: string | null } | null
}

/**
 * The `authDomain` override. Firebase's authDomain is the host that handles the
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
  const checked = await checkedRedirect(`${candidate}/`, publicOrigin)
  if (!checked) {
    logger.warn({ event: 'auth-domain-refused', authDomain: host }, 'authDomain ignored: not an allowed host')
    return publicOrigin
  }
  return new URL(checked.url).origin
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
export async function beginSso(input: SsoIntent, settings: SsoSettings): Promise<{ authUri: string; state: SsoState }> {
  const nonce = randomBytes(16).toString('base64url')
  const continueUri = `${input.callbackOrigin}${CALLBACK_PATH}`
  if (settings.emulator) {
    return {
      authUri: emulatorAuthUri({ ...settings, emulator: settings.emulator }, input.callbackOrigin, nonce),
      state: { ...input, sessionId: nonce, nonce },
    }
  }
  const answer = await settings.identity.createAuthUri({ providerId: settings.providerId, continueUri })
  const authUri = answer.authUri ? safeProviderUrl(answer.authUri) : null
  if (!authUri || !answer.sessionId) throw new Error('createAuthUri gave no authUri or sessionId')
  return { authUri, state: { ...input, sessionId: answer.sessionId, nonce } }
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
