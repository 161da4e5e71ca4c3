import { applicationDefault, getApps, initializeApp, type App } from 'firebase-admin/app'
import { getAuth } from 'firebase-admin/auth'
import { getConfig } from '~/.server/config'
import { COOKIES, clearCookie, getCookie, setCookie } from '~/.server/cookies'
import { getIdentity, IdentityError, type Account, type SecondFactor } from '~/.server/identity'
import { logger } from '~/.server/ops/logger'
import { recordSessionVerification } from '~/.server/ops/metrics'
import { deadlineAgent, withDeadline } from './admin-http'
import { getEndedSessions } from './ended-sessions'
import { syncToken } from './token-sync'

/**
 * Sessions are Firebase session cookies (firebase-admin), HttpOnly, verified with revocation
 * checks on every use. An ID token is exchanged only when it was minted by a fresh sign-in.
 */

export const RECENT_SIGN_IN_SECONDS = 5 * 60

function adminApp(): App {
  const existing = getApps().find((app) => app.name === 'auth-portal')
  if (existing) return existing
  const { identity } = getConfig()
  if (identity.emulatorOrigin) {
    // firebase-admin reads the emulator from the environment, as host:port.
    process.env.FIREBASE_AUTH_EMULATOR_HOST = new URL(identity.emulatorOrigin).host
    // It speaks plain HTTP to the emulator and needs no credential there.
    return initializeApp(
      { projectId: identity.projectId, httpAgent: deadlineAgent(false, identity.timeoutMs) },
      'auth-portal',
    )
  }
  // Every road to Google (the service, its public keys, the credential's tokens) takes the bounded agent.
  const httpAgent = deadlineAgent(true, identity.timeoutMs)
  return initializeApp(
    { projectId: identity.projectId, httpAgent, credential: applicationDefault(httpAgent) },
    'auth-portal',
  )
}

/**
 * Every firebase-admin call: within the identity client's in-flight bound and IDENTITY_TIMEOUT_MS
 * (ADR 029). Rejects with firebase-admin's own error, or with an IdentityError
 * (auth/network-request-failed) when the network failed, the bound was full or time ran out.
 */
async function admin<T>(name: string, work: () => Promise<T>): Promise<T> {
  const { timeoutMs } = getConfig().identity
  const outcome = await getIdentity().bounded(name, () => withDeadline(timeoutMs, work))
  if (outcome.ok) return outcome.value
  if (outcome.networkFailed) throw new IdentityError('auth/network-request-failed', undefined, 'ADMIN_NETWORK')
  throw outcome.error
}

function auth() {
  const { identity } = getConfig()
  const base = getAuth(adminApp())
  return identity.tenantId ? base.tenantManager().authForTenant(identity.tenantId) : base
}

export interface SessionUser {
  uid: string
  email: string | null
  /** Signed in with "Keep me signed in": a new session of this browser (a password change) keeps it (ADR 037). */
  remembered: boolean
}

/**
 * The claims the portal reads from an ID token that just came from the identity service (it is
 * not verified here): `sub`, `auth_time`, and `firebase.sign_in_second_factor` (`phone`, `totp`)
 * after a second factor.
 */
export function tokenClaims(idToken: string): {
  uid: string | null
  authTime: number | null
  secondFactor: string | null
} {
  const none = { uid: null, authTime: null, secondFactor: null }
  const payload = idToken.split('.')[1]
  if (!payload) return none
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      sub?: unknown
      auth_time?: unknown
      firebase?: { sign_in_second_factor?: unknown }
    }
    const factor = claims.firebase?.sign_in_second_factor
    return {
      uid: typeof claims.sub === 'string' && claims.sub ? claims.sub : null,
      authTime: typeof claims.auth_time === 'number' ? claims.auth_time : null,
      secondFactor: typeof factor === 'string' && factor ? factor : null,
    }
  } catch {
    return none
  }
}

/** A sign-in this recent opens a session or confirms a sensitive action (Identity Platform's own rule). */
export function isRecentSignIn(authTime: number | null): authTime is number {
  return authTime !== null && Date.now() / 1000 - authTime <= RECENT_SIGN_IN_SECONDS
}

/**
 * The Set-Cookie value for a new session; refuses tokens from a sign-in older than 5 minutes.
 * After a second factor, the token must also say it was made by one (ADR 022): a first-factor
 * token never opens a session of an account that has a second factor.
 *
 * By default the cookie ends with the browser (no Max-Age) and the identity service ends the
 * session after SESSION_MAX_AGE anyway; with "Keep me signed in" (`remember`) both last
 * SESSION_REMEMBER_MAX_AGE (ADR 037).
 */
export async function createSession(
  idToken: string,
  options: { secondFactor?: boolean; remember: boolean },
): Promise<string> {
  const { authTime, secondFactor } = tokenClaims(idToken)
  if (!isRecentSignIn(authTime)) {
    throw new Error('the ID token does not come from a recent sign-in')
  }
  if (options.secondFactor && !secondFactor) throw new Error('the ID token does not come from a second factor')
  const lifetime = sessionLifetime(options.remember)
  const mint = () => admin('createSessionCookie', () => auth().createSessionCookie(idToken, { expiresIn: lifetime * 1000 }))
  let cookie = await mint()
  // A session cookie's claims count in seconds: signed in again in the second this browser logged
  // out, the account gets the very cookie that was ended, and would be refused. Made in the next
  // second, it is a new one, and a copy of the ended one stays refused.
  if (await getEndedSessions().isEnded(cookie)) {
    await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000)))
    cookie = await mint()
  }
  return setCookie(COOKIES.session, cookie, options.remember ? { maxAge: lifetime } : {})
}

/**
 * The session a sign-in starts: its cookie (createSession), then the other service is told
 * (syncToken, ADR 006). A session made again for a browser already signed in (after a change of
 * second factors) is createSession alone.
 */
export async function startSession(
  idToken: string,
  options: { secondFactor: boolean; remember: boolean },
): Promise<string> {
  const cookie = await createSession(idToken, options)
  await syncToken(idToken)
  return cookie
}

/** How long a session lasts at the identity service, in seconds. */
function sessionLifetime(remember: boolean): number {
  const config = getConfig()
  return remember ? config.sessionRememberMaxAgeSeconds : config.sessionMaxAgeSeconds
}

/** The longest any session cookie can live, in seconds. */
export function longestSession(): number {
  return Math.max(sessionLifetime(true), sessionLifetime(false))
}

export function clearSessionCookie(): string {
  return clearCookie(COOKIES.session)
}

/**
 * The session a page is shown for, and the cookies its answer sets: a session cookie the service
 * refused is cleared; one it could not judge stays (ADR 029).
 */
export async function pageSession(request: Request): Promise<{ session: SessionState; cookies: string[] }> {
  const session = await getSession(request)
  return { session, cookies: session.status === 'invalid' ? [clearSessionCookie()] : [] }
}

export function readSessionCookie(request: Request): string | null {
  return getCookie(request, COOKIES.session)
}

export type SessionState =
  | { status: 'anonymous' }
  | { status: 'signed-in'; user: SessionUser }
  /**
   * A cookie was sent but is expired, revoked, malformed or its user disabled or deleted: clear it.
   * `tokenSyncTold`: the session had ended elsewhere and token sync got its DELETE already.
   */
  | { status: 'invalid'; tokenSyncTold: boolean }
  /** The identity service could not judge the cookie (down, slow, overloaded): keep it, answer 503. */
  | { status: 'unavailable' }

/**
 * The firebase-admin codes that are a verdict about the session itself (ADR 029). Anything else
 * (app/network-error, app/network-timeout, auth/internal-error, our time-out or in-flight bound…)
 * says the service could not judge it.
 */
const VERDICTS = new Set([
  'auth/session-cookie-expired',
  'auth/session-cookie-revoked',
  'auth/user-disabled',
  'auth/user-not-found',
  // Malformed, wrong project, bad signature. firebase-admin also reports a failed fetch of Google's
  // public keys with this code; that case has a network failure and is not a verdict.
  'auth/argument-error',
  'auth/invalid-argument',
])

/**
 * The verdicts that a real session ended without this browser logging out (a password change or
 * "Log out of all devices" elsewhere, its lifetime, the account disabled or deleted): token sync,
 * told only at sign-in and logout, has not heard of it.
 */
const ENDED_ELSEWHERE = new Set([
  'auth/session-cookie-expired',
  'auth/session-cookie-revoked',
  'auth/user-disabled',
  'auth/user-not-found',
])

/** Verifies the session cookie, checking revocation and disabled users. */
export async function getSession(request: Request): Promise<SessionState> {
  const cookie = readSessionCookie(request)
  if (!cookie) return { status: 'anonymous' }
  const started = performance.now()
  const state = await verify(cookie)
  recordSessionVerification(state.status, (performance.now() - started) / 1000)
  return state
}

async function verify(cookie: string): Promise<Exclude<SessionState, { status: 'anonymous' }>> {
  // Logged out in this browser: the identity service would still take it (./ended-sessions.ts).
  if (await getEndedSessions().isEnded(cookie)) {
    logger.info({ event: 'session-rejected', code: 'ended' }, 'session cookie rejected')
    return { status: 'invalid', tokenSyncTold: false }
  }
  try {
    const claims = await admin('verifySessionCookie', () => auth().verifySessionCookie(cookie, true))
    // The cookie carries its own lifetime (`exp - iat`, as minted): "Keep me signed in" is the longer one.
    const remembered = claims.exp - claims.iat > getConfig().sessionMaxAgeSeconds
    return { status: 'signed-in', user: { uid: claims.uid, email: claims.email ?? null, remembered } }
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unknown'
    if (!(error instanceof IdentityError) && VERDICTS.has(code)) {
      logger.info({ event: 'session-rejected', code }, 'session cookie rejected')
      // Told once: every caller clears an invalid cookie in the same answer.
      const tokenSyncTold = ENDED_ELSEWHERE.has(code)
      if (tokenSyncTold) await syncToken(null)
      return { status: 'invalid', tokenSyncTold }
    }
    const reason = error instanceof IdentityError ? error.reason : undefined
    logger.warn({ event: 'session-unverified', code, reason }, 'session cookie could not be checked')
    return { status: 'unavailable' }
  }
}

/** Ends every session of the user, everywhere: their refresh tokens and session cookies stop working. */
export async function revokeSessions(uid: string): Promise<void> {
  await admin('revokeRefreshTokens', () => auth().revokeRefreshTokens(uid))
}

/** After a password reset: every session that existed before it ends. */
export async function revokeSessionsByEmail(email: string): Promise<void> {
  try {
    const user = await admin('getUserByEmail', () => auth().getUserByEmail(email))
    await admin('revokeRefreshTokens', () => auth().revokeRefreshTokens(user.uid))
  } catch (error) {
    logger.warn({ event: 'revoke-failed', code: (error as { code?: string }).code }, 'could not revoke sessions')
  }
}

/**
 * The account page's facts (address, verified or not, providers, second factors, dates), read with
 * the portal's admin credential: the portal keeps no ID token to call `accounts:lookup` with, and
 * asking for the password again just to show the page would be too much (ADR 036).
 */
/** A second factor as the account page lists it: with when it was added (milliseconds), when known. */
export type AccountFactor = SecondFactor & { enrolledAt: number | null }

export async function readAccount(uid: string): Promise<Omit<Account, 'secondFactors'> & { secondFactors: AccountFactor[] }> {
  const user = await admin('getUser', () => auth().getUser(uid))
  const millis = (text: string | null | undefined) => (text ? Date.parse(text) || null : null)
  const secondFactors = (user.multiFactor?.enrolledFactors ?? []).flatMap((f): AccountFactor[] => {
    const displayName = f.displayName?.trim() || null
    const enrolledAt = millis(f.enrollmentTime)
    const phone = (f as { phoneNumber?: string }).phoneNumber
    // Shown masked, as the service masks it at sign-in: the last 4 digits only.
    if (f.factorId === 'phone' && phone) {
      return [{ kind: 'phone', id: f.uid, displayName, phone: `+${'*'.repeat(7)}${phone.slice(-4)}`, enrolledAt }]
    }
    if (f.factorId === 'totp') return [{ kind: 'totp', id: f.uid, displayName, enrolledAt }]
    return []
  })
  return {
    localId: user.uid,
    email: user.email ?? null,
    emailVerified: user.emailVerified,
    displayName: user.displayName?.trim() || null,
    providers: user.providerData.map((p) => ({ providerId: p.providerId, email: p.email ?? null })),
    secondFactors,
    createdAt: millis(user.metadata.creationTime),
    lastLoginAt: millis(user.metadata.lastSignInTime),
  }
}
