import { applicationDefault, getApps, initializeApp, type App } from 'firebase-admin/app'
import { getAuth } from 'firebase-admin/auth'
import { getConfig } from '~/.server/config'
import { getIdentity, IdentityError, type Account, type SecondFactor } from '~/.server/identity'
import { deadlineAgent, withDeadline } from './admin-http'

/**
 * The calls the portal makes with its own credential (firebase-admin): the identity service's
 * session cookies inside each session record (./session.ts), revocation, and the account page's facts.
 */

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

/** The identity service's session for a fresh ID token, lasting `seconds`. */
export function createIdentitySession(idToken: string, seconds: number): Promise<string> {
  return admin('createSessionCookie', () => auth().createSessionCookie(idToken, { expiresIn: seconds * 1000 }))
}

/** Its verdict on one of its sessions, revocation and a disabled account included: the claims, or its error. */
export function verifyIdentitySession(cookie: string) {
  return admin('verifySessionCookie', () => auth().verifySessionCookie(cookie, true))
}

/** Ends every session of the user, everywhere: their refresh tokens and session cookies stop working. */
export async function revokeSessions(uid: string): Promise<void> {
  await admin('revokeRefreshTokens', () => auth().revokeRefreshTokens(uid))
}

/** The account's id for its address, or null when there is none or the service cannot say. */
export async function uidOf(email: string): Promise<string | null> {
  return admin('getUserByEmail', () => auth().getUserByEmail(email)).then(
    (user) => user.uid,
    () => null,
  )
}

/** An access token of the portal's own credential, for admin REST calls (the emulator takes its fixed owner token). */
async function adminAccessToken(): Promise<string> {
  const credential = getConfig().identity.emulatorOrigin ? null : adminApp().options.credential
  return credential ? (await admin('getAccessToken', () => credential.getAccessToken())).access_token : 'owner'
}

/** The account's passkeys, read with the portal's own credential. */
export async function readPasskeys(uid: string) {
  return getIdentity().passkeysOf(uid, await adminAccessToken())
}

/** The project's multi-factor settings, read with the portal's own credential (./second-factor-kinds.ts). */
export async function readMfaConfig() {
  return getIdentity().getMfaConfig(await adminAccessToken())
}

/** A second factor as the account page lists it: with when it was added (milliseconds), when known. */
export type AccountFactor = SecondFactor & { enrolledAt: number | null }

/**
 * The account page's facts (address, verified or not, providers, second factors, dates), read with
 * the portal's admin credential: the portal keeps no ID token to call `accounts:lookup` with, and
 * asking for the password again just to show the page would be too much (ADR 036).
 */
export async function readAccount(
  uid: string,
): Promise<Omit<Account, 'secondFactors'> & { secondFactors: AccountFactor[]; validSince: number | null }> {
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
    // Sessions made before it were revoked ("Log out of all devices", a new password).
    validSince: millis(user.tokensValidAfterTime),
  }
}
