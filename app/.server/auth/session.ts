import { randomBytes } from 'node:crypto'
import type { AppLoadContext } from '~/.server/context'
import { getConfig } from '~/.server/config'
import { COOKIES, clearCookie, getCookie, setCookie } from '~/.server/cookies'
import { IdentityError, RECENT_SIGN_IN_SECONDS, isRecentSignIn, recentUntil, tokenClaims } from '~/.server/identity'
import { logger, securityEvent } from '~/.server/ops/logger'
import { metrics } from '~/.server/ops/metrics'
import { rotateCsrf } from '~/.server/policy/csrf'
import { deviceCookie } from '~/.server/policy/rate-limit'
import { defaultRedirect, type CheckedRedirect } from '~/.server/policy/redirect'
import { createIdentitySession, verifyIdentitySession } from './identity-admin'
import { SESSION_ID, deviceOf, getSessionStore, keyOf, open, seal } from './session-store'
import type { Secrets, SessionRecord, SignInMethod, StoredSession } from './session-store'

const LAST_SEEN_EVERY_MS = 60_000

export interface SessionUser {
  uid: string
  email: string | null
  remembered: boolean
  sessionKey: string
  recentIdToken: string | null
}

// Refuses a token from a sign-in older than 5 minutes, and
// after a second factor one that does not say so (see ADR 022).
export async function createSession(
  idToken: string,
  session: Pick<SessionRecord, 'method' | 'secondFactor'> & { remember: boolean },
  context: Pick<AppLoadContext, 'clientIp' | 'userAgent'>,
) {
  const { uid, authTime, secondFactor } = tokenClaims(idToken)
  if (!uid || !isRecentSignIn(authTime)) throw new Error('the ID token does not come from a recent sign-in')
  if (session.secondFactor && !secondFactor) throw new Error('the ID token does not come from a second factor')
  const config = getConfig()
  const lifetime = session.remember ? config.sessionRememberMaxAgeSeconds : config.sessionMaxAgeSeconds
  const identity = await createIdentitySession(idToken, lifetime)
  const id = randomBytes(32).toString('base64url')
  const now = Date.now()
  await getSessionStore().add(
    keyOf(id),
    {
      uid,
      createdAt: now,
      expiresAt: now + lifetime * 1000,
      lastSeenAt: now,
      method: session.method,
      secondFactor: session.secondFactor,
      remembered: session.remember,
      device: deviceOf(context.userAgent ?? ''),
      ip: context.clientIp,
      sealed: seal(id, { identity, recent: idToken, recentUntil: recentUntil(idToken, config.recentSignInSeconds) }),
    },
    config.sessionMaxPerAccount,
  )
  return setCookie(COOKIES.session, id, session.remember ? { maxAge: lifetime } : {})
}

/** Whom a security event or a limit names: the request, the client's address, the account's email (logged hashed). */
export const whoOf = (context: Pick<AppLoadContext, 'requestId' | 'clientIp'>, email?: string | null) => ({
  reqId: context.requestId,
  ip: context.clientIp,
  email: email ?? undefined,
})

/** A signed-in browser: its session, the CSRF token rotated, the device cookie, the event. */
export async function handleNewSession(
  idToken: string,
  input: {
    email: string | null
    method: SignInMethod
    redirect: CheckedRedirect | null
    remember: boolean
    secondFactor?: 'phone' | 'totp'
  },
  context: AppLoadContext,
): Promise<{ setCookies: string[]; location: string }> {
  const session = await createSession(
    idToken,
    { method: input.method, secondFactor: input.secondFactor ?? null, remember: input.remember },
    context,
  )
  await syncToken(idToken)
  // A CSRF token seen before sign-in (shared computer, or planted) must not survive it.
  const setCookies = [session, rotateCsrf()]
  if (input.email) setCookies.push(deviceCookie(input.email))
  const { method, secondFactor } = input
  securityEvent('sign-in-success', { ...whoOf(context, input.email), method, secondFactor })
  metrics.signIn.inc({ outcome: 'success' })
  return { setCookies, location: input.redirect?.url ?? defaultRedirect() }
}

export async function pageSession(request: Request): Promise<{ session: SessionState; cookies: string[] }> {
  const session = await getSession(request)
  return { session, cookies: session.status === 'invalid' ? [clearCookie(COOKIES.session)] : [] }
}

export type SessionState =
  | { status: 'anonymous' }
  | { status: 'signed-in'; user: SessionUser }
  | { status: 'invalid'; tokenSyncTold: boolean }
  | { status: 'unavailable' }

// Only these codes are the service's verdict; anything else means
// it could not judge, and the cookie is kept (see ADR 029).
const VERDICTS = new Set([
  'auth/session-cookie-expired',
  'auth/session-cookie-revoked',
  'auth/user-disabled',
  'auth/user-not-found',
  'auth/argument-error',
  'auth/invalid-argument',
])

export async function getSession(request: Request): Promise<SessionState> {
  const id = getCookie(request, COOKIES.session)
  if (!id) return { status: 'anonymous' }
  const started = performance.now()
  const state = await verify(id)
  metrics.sessionVerification.observe({ outcome: state.status }, (performance.now() - started) / 1000)
  return state
}

// The identity service's session inside the record is verified with
// revocation checks on every use: the service stays the authority.
async function verify(id: string): Promise<Exclude<SessionState, { status: 'anonymous' }>> {
  const invalid = (code: string) => {
    logger.info({ event: 'session-rejected', code }, 'session cookie rejected')
    return { status: 'invalid' as const, tokenSyncTold: false }
  }
  if (!SESSION_ID.test(id)) return invalid('malformed')
  const key = keyOf(id)
  let record: SessionRecord | null
  try {
    record = await getSessionStore().get(key)
  } catch (error) {
    logger.warn({ event: 'session-store-failed', err: (error as Error).message }, 'session store could not be read')
    return { status: 'unavailable' }
  }
  const secrets = record && open(id, record.sealed)
  if (!record || !secrets) return invalid('ended')
  try {
    const claims = await verifyIdentitySession(secrets.identity)
    if (Date.now() - record.lastSeenAt > LAST_SEEN_EVERY_MS) {
      await getSessionStore()
        .update(key, { lastSeenAt: Date.now() })
        .catch((error: unknown) => logger.warn({ event: 'session-store-failed', err: (error as Error).message }, 'last use not written'))
    }
    // recentUntil is at most 5 minutes after the token's sign-in.
    const recent = secrets.recent && Date.now() <= secrets.recentUntil ? secrets.recent : null
    const user = { uid: claims.uid, email: claims.email ?? null, remembered: record.remembered, sessionKey: key, recentIdToken: recent }
    return { status: 'signed-in', user }
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unknown'
    if (!(error instanceof IdentityError) && VERDICTS.has(code)) {
      logger.info({ event: 'session-rejected', code }, 'session cookie rejected')
      await getSessionStore()
        .remove(key)
        .catch(() => undefined)
      // Ended elsewhere (password change, "Log out of all devices", account disabled): token sync has not heard of it.
      await syncToken(null)
      return { status: 'invalid', tokenSyncTold: true }
    }
    const reason = error instanceof IdentityError ? error.reason : undefined
    logger.warn({ event: 'session-unverified', code, reason }, 'session cookie could not be checked')
    return { status: 'unavailable' }
  }
}

async function thisRecord(request: Request) {
  const id = getCookie(request, COOKIES.session)
  if (!id || !SESSION_ID.test(id)) return null
  const record = await getSessionStore().get(keyOf(id))
  const secrets = record && open(id, record.sealed)
  return record && secrets ? { id, record, secrets } : null
}

function reseal(id: string, secrets: Omit<Secrets, 'recentUntil'> & { recent: string }) {
  const sealed = seal(id, { ...secrets, recentUntil: recentUntil(secrets.recent, RECENT_SIGN_IN_SECONDS) })
  return getSessionStore().update(keyOf(id), { sealed })
}

export async function keepRecentSignIn(request: Request, user: Pick<SessionUser, 'uid'>, idToken: string): Promise<boolean> {
  const { uid, authTime } = tokenClaims(idToken)
  if (uid !== user.uid || !isRecentSignIn(authTime)) return false
  const mine = await thisRecord(request)
  if (!mine) return false
  await reseal(mine.id, { ...mine.secrets, recent: idToken })
  return true
}

export async function renewIdentitySession(request: Request, user: SessionUser, idToken: string): Promise<void> {
  const mine = tokenClaims(idToken).uid === user.uid ? await thisRecord(request) : null
  if (!mine) return
  const identity = await createIdentitySession(idToken, Math.max(1, Math.floor((mine.record.expiresAt - Date.now()) / 1000)))
  await reseal(mine.id, { identity, recent: idToken })
}

export async function endThisSession(request: Request): Promise<void> {
  const id = getCookie(request, COOKIES.session)
  if (id && SESSION_ID.test(id)) await getSessionStore().remove(keyOf(id))
}

export async function endSessionOf(user: SessionUser, key: string): Promise<boolean> {
  const record = await getSessionStore().get(key)
  return record?.uid === user.uid && (await getSessionStore().remove(key))
}

export function listSessions(user: SessionUser): Promise<StoredSession[]> {
  return getSessionStore().list(user.uid)
}

/** A failure is logged and never blocks the visitor: the portal's own session is the source of truth (see ADR 006). */
export async function syncToken(idToken: string | null): Promise<void> {
  const { tokenSyncUrl, tokenSyncTimeoutMs } = getConfig()
  if (!tokenSyncUrl) return
  const method = idToken ? 'POST' : 'DELETE'
  try {
    const response = await fetch(tokenSyncUrl, {
      method,
      headers: idToken ? { Authorization: `Bearer ${idToken}` } : {},
      // Its own short time-out: every sign-in and logout waits for this call.
      signal: AbortSignal.timeout(tokenSyncTimeoutMs),
      redirect: 'error',
    })
    await response.body?.cancel()
    if (!response.ok) logger.warn({ event: 'token-sync-failed', method, status: response.status }, 'token sync failed')
  } catch (error) {
    logger.warn({ event: 'token-sync-failed', method, error: (error as Error).name }, 'token sync failed')
  }
}
