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

/** A fresh, valid session cookie of a new account (signed up in the emulator under `tag`). */
export async function freshSessionCookie(emulator: Emulator, password: string, tag: string): Promise<string> {
  const signUp = await fetch(
    `${emulator.origin}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=${EMULATOR_API_KEY}`,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: uniqueEmail(tag), password, returnSecureToken: true }),
    },
  )
  const { idToken } = (await signUp.json()) as { idToken: string }
  return sessionCookieFor(emulator, idToken)
}
