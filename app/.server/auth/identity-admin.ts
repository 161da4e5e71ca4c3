import { AsyncLocalStorage } from 'node:async_hooks'
import http from 'node:http'
import https from 'node:https'
import type { Duplex } from 'node:stream'
import { applicationDefault, getApps, initializeApp, type App } from 'firebase-admin/app'
import { getAuth } from 'firebase-admin/auth'
import { getConfig } from '~/.server/config'
import { getIdentity, IdentityError, type SecondFactor } from '~/.server/identity'

// firebase-admin alone gives each try 25 s and retries 4 times (a hung service held a visitor 132 s). Every call runs
// in withDeadline() and its connections go through deadlineAgent(), which destroys them at the deadline. See ADR 029.

const calls = new AsyncLocalStorage<{ deadline: number; networkFailed: boolean }>()

export async function withDeadline<T>(
  ms: number,
  work: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown; networkFailed: boolean }> {
  const call = { deadline: Date.now() + ms, networkFailed: false }
  return calls.run(call, async () => {
    try {
      return { ok: true, value: await work() }
    } catch (error) {
      return { ok: false, error, networkFailed: call.networkFailed }
    }
  })
}

function deadlineError(): Error {
  // Not ECONNRESET or ETIMEDOUT: firebase-admin retries those.
  return Object.assign(new Error('identity call deadline passed'), { code: 'IDENTITY_DEADLINE' })
}

/** No keep-alive and no queue, so each request opens its own connection inside the call that made it. */
export function deadlineAgent(secure: boolean, fallbackMs: number): http.Agent {
  const Base = secure ? https.Agent : http.Agent
  class DeadlineAgent extends Base {
    override createConnection(
      options: Parameters<http.Agent['createConnection']>[0],
      callback?: (error: Error | null, socket: Duplex) => void,
    ): Duplex | null | undefined {
      const call = calls.getStore()
      const remaining = (call?.deadline ?? Date.now() + fallbackMs) - Date.now()
      if (remaining <= 0) {
        if (call) call.networkFailed = true
        process.nextTick(() => callback?.(deadlineError(), undefined as unknown as Duplex))
        return undefined
      }
      const socket = super.createConnection(options, callback)
      if (!socket) return socket
      const timer = setTimeout(() => socket.destroy(deadlineError()), remaining)
      socket.once('error', () => {
        if (call) call.networkFailed = true
      })
      socket.once('close', () => clearTimeout(timer))
      return socket
    }
  }
  return new DeadlineAgent({ keepAlive: false })
}

function adminApp(): App {
  const existing = getApps().find((app) => app.name === 'auth-portal')
  if (existing) return existing
  const { emulatorOrigin, projectId, timeoutMs } = getConfig().identity
  // firebase-admin reads the emulator from the environment, as host:port.
  if (emulatorOrigin) process.env.FIREBASE_AUTH_EMULATOR_HOST = new URL(emulatorOrigin).host
  // Every request to Google (service, public keys, credential tokens) goes through the bounded agent.
  const httpAgent = deadlineAgent(!emulatorOrigin, timeoutMs)
  // Set only when given: firebase-admin refuses a credential present but undefined.
  const credential = emulatorOrigin ? {} : { credential: applicationDefault(httpAgent) }
  return initializeApp({ projectId, httpAgent, ...credential }, 'auth-portal')
}

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

export function createIdentitySession(idToken: string, seconds: number): Promise<string> {
  return admin('createSessionCookie', () => auth().createSessionCookie(idToken, { expiresIn: seconds * 1000 }))
}

export function verifyIdentitySession(cookie: string) {
  return admin('verifySessionCookie', () => auth().verifySessionCookie(cookie, true))
}

export async function revokeSessions(uid: string): Promise<void> {
  await admin('revokeRefreshTokens', () => auth().revokeRefreshTokens(uid))
}

export async function uidOf(email: string): Promise<string | null> {
  return admin('getUserByEmail', () => auth().getUserByEmail(email)).then(
    (user) => user.uid,
    () => null,
  )
}

async function adminAccessToken(): Promise<string> {
  const credential = getConfig().identity.emulatorOrigin ? null : adminApp().options.credential
  return credential ? (await admin('getAccessToken', () => credential.getAccessToken())).access_token : 'owner'
}

export async function readPasskeys(uid: string) {
  return getIdentity().passkeysOf(uid, await adminAccessToken())
}

export async function readMfaConfig() {
  return getIdentity().getMfaConfig(await adminAccessToken())
}

export type AccountFactor = SecondFactor & { enrolledAt: number | null }

// Read with the admin credential: the portal keeps no ID token for
// accounts:lookup, and asking for the password just to show the page is too much.
export async function readAccount(uid: string) {
  const user = await admin('getUser', () => auth().getUser(uid))
  const millis = (text: string | null | undefined) => (text ? Date.parse(text) || null : null)
  const secondFactors = (user.multiFactor?.enrolledFactors ?? []).flatMap((f): AccountFactor[] => {
    const displayName = f.displayName?.trim() || null
    const enrolledAt = millis(f.enrollmentTime)
    const phone = (f as { phoneNumber?: string }).phoneNumber
    // Masked as the service masks it at sign-in: last 4 digits only.
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
    validSince: millis(user.tokensValidAfterTime),
  }
}
