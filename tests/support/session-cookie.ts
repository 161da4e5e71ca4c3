import { EMULATOR_API_KEY, uniqueEmail } from '../../dev/emulator'

type Emulator = { origin: string; projectId: string }

/** The `session=…` cookie the portal would set for this ID token, made by the emulator's REST API. */
export async function sessionCookieFor(emulator: Emulator, idToken: string): Promise<string> {
  const res = await fetch(
    `${emulator.origin}/identitytoolkit.googleapis.com/v1/projects/${emulator.projectId}:createSessionCookie`,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer owner' },
      body: JSON.stringify({ idToken, validDuration: 3600 }),
    },
  )
  const { sessionCookie } = (await res.json()) as { sessionCookie: string }
  return `session=${sessionCookie}`
}

/** A new account's ID token, from the emulator's sign-up (`fields`: an address and password, or none for an anonymous one). */
async function signUp(emulator: Emulator, fields: Record<string, string>): Promise<string> {
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
  return sessionCookieFor(emulator, await signUp(emulator, { email: uniqueEmail(tag), password }))
}

/** A fresh, valid session cookie of a new account without an email address (the service's anonymous account). */
export async function addresslessSessionCookie(emulator: Emulator): Promise<string> {
  return sessionCookieFor(emulator, await signUp(emulator, {}))
}
