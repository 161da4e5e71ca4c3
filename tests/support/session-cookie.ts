import { EMULATOR_API_KEY, uniqueEmail } from '../../dev/emulator'

type Emulator = { origin: string; projectId: string }

/**
 * The `session=…` cookie of a new session for this ID token, made by the product itself in this
 * worker, in the session store it shares with the run's portals (pointAtEmulator). The calling
 * file points its product modules at the emulator first (tests/support/emulator-env.ts).
 */
export async function sessionCookieFor(idToken: string): Promise<string> {
  const { createSession } = await import('../../app/.server/auth/session')
  const cookie = await createSession(idToken, { method: 'password', secondFactor: null, remember: false }, { clientIp: '192.0.2.1' })
  return cookie.split(';')[0]!
}

/** A new account's ID token, from the emulator's sign-up (`fields`: an address and password, or none for an anonymous one). */
export async function signUp(emulator: Emulator, fields: Record<string, string>): Promise<string> {
  const res = await fetch(`${emulator.origin}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=${EMULATOR_API_KEY}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...fields, returnSecureToken: true }),
  })
  const { idToken } = (await res.json()) as { idToken: string }
  return idToken
}

/** A fresh, valid session cookie of a new account (signed up in the emulator under `tag`). */
export async function freshSessionCookie(emulator: Emulator, password: string, tag: string): Promise<string> {
  return sessionCookieFor(await signUp(emulator, { email: uniqueEmail(tag), password }))
}

/** A fresh, valid session cookie of a new account without an email address (the service's anonymous account). */
export async function addresslessSessionCookie(emulator: Emulator): Promise<string> {
  return sessionCookieFor(await signUp(emulator, {}))
}
