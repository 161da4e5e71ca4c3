import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto'

/**
 * A session record's id, its key in the store and its seal (ADR 063): the cookie holds the id, the
 * store knows the record by the id's SHA-256, and what could act for the visitor is sealed with
 * AES-256-GCM under a key derived from the id. A copy of the store opens nothing.
 */

/**
 * What the record keeps sealed: the identity service's session, and the ID token of the last sign-in
 * or confirmation with the time it stops counting as recent (ms): RECENT_SIGN_IN_SECONDS after a
 * sign-in, 5 minutes after "Confirm it's you".
 */
export interface Secrets {
  identity: string
  recent: string | null
  recentUntil: number
}

/** A cookie's id: 32 random bytes, base64url. Anything else (an older cookie's format included) opens nothing. */
export const SESSION_ID = /^[\w-]{43}$/
export const keyOf = (id: string) => createHash('sha256').update(id).digest('base64url')
const sealKey = (id: string) => Buffer.from(hkdfSync('sha256', id, 'portal-session-record', 'seal', 32))

export function seal(id: string, secrets: Secrets): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', sealKey(id), iv).setAAD(Buffer.from(keyOf(id)))
  const body = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
}

export function open(id: string, sealed: string): Secrets | null {
  try {
    const raw = Buffer.from(sealed, 'base64url')
    const decipher = createDecipheriv('aes-256-gcm', sealKey(id), raw.subarray(0, 12)).setAAD(Buffer.from(keyOf(id)))
    decipher.setAuthTag(raw.subarray(12, 28))
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as Secrets
  } catch {
    return null
  }
}
