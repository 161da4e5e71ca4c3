import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto'

// The store knows a record by the SHA-256 of the cookie's id, and its secrets are sealed
// with a key derived from the id: a copy of the store opens nothing (see ADR 063).

export interface Secrets {
  identity: string
  recent: string | null
  recentUntil: number
}

/** Anything else, an older cookie format included, opens nothing. */
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
