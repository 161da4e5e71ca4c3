import { randomBytes } from 'node:crypto'
import { z } from 'zod'
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
import { ConfirmingSchema } from '../second-factor/pending'
import type { SsoError } from '../sign-in-page'

export const CALLBACK_PATH = '/sso/callback'
export const RELAY_PARAM = 'portal_relay'
export const REPOST_PARAM = 'portal_repost'
const EMULATOR_PARAM = 'emulator'

export const SsoStateSchema = z.object({
  sessionId: z.string(),
  callbackOrigin: z.string(),
  nonce: z.string(),
  redirect: z.string().nullable(),
  remember: z.boolean(),
  confirm: ConfirmingSchema.nullable(),
})
export type SsoState = z.output<typeof SsoStateSchema>

export type SsoIntent = Pick<SsoState, 'redirect' | 'callbackOrigin' | 'remember' | 'confirm'>

export interface SsoSettings {
  identity: Pick<IdentityClient, 'createAuthUri' | 'signInWithIdp'>
  providerId: string
  emulator: { origin: string; apiKey: string; tenantId: string | null } | null
}

/** Only a host the redirect policy would accept is used: anything else could send a credential elsewhere. */
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

// The emulator has no createAuthUri provider support: its own handler page stands in, and it hands the
// credential back only in the iOS deep-link format, so `ibi` is our callback with an open query parameter.
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

/** Must be https: it goes into a Refresh header and a link. */
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
  | { ok: true; mfa: MfaRequired; email: string | null }
  | { ok: false; error: SsoError; code?: AuthCode }

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

/** Accepted only from the configured emulator, with the eventId this browser was given. */
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
