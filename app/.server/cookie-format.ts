import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'
import { getConfig } from './config'
import { signingKeys } from './keys'

/**
 * How a cookie is written and read: the Set-Cookie syntax and the sealed-value format. Which
 * cookies exist, and with what attributes, is the registry's business (./cookies.ts).
 */

export interface CookieOptions {
  maxAge?: number
  httpOnly?: boolean
  sameSite?: 'Lax' | 'Strict' | 'None'
}

/** Cookies over https are Secure; on plain-http localhost (development) they cannot be. */
export function isSecureOrigin(): boolean {
  return getConfig().publicOrigin.startsWith('https:')
}

/**
 * The name a cookie carries: `__Host-` over https, which browsers accept only from this exact
 * host with Secure, Path=/ and no Domain, so no sibling subdomain or network attacker can plant it.
 */
export function hostCookieName(base: string): string {
  return isSecureOrigin() ? `__Host-${base}` : base
}

/** A host-only cookie (never a Domain attribute) on Path=/, the only kind the portal sets. */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', `SameSite=${options.sameSite ?? 'Lax'}`]
  if (options.maxAge !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(options.maxAge))}`)
  if (options.httpOnly ?? true) parts.push('HttpOnly')
  if (isSecureOrigin()) parts.push('Secure')
  return parts.join('; ')
}

/** A cookie's value from a Cookie header, or null. */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim())
      } catch {
        return null
      }
    }
  }
  return null
}

/**
 * Sealed values: `expiry.payload.mac`, the payload base64url. The HMAC covers the purpose (so one
 * cookie's value cannot be replayed as another's) and `binding`, the browser's own secret (its
 * CSRF token, app/.server/policy/csrf.ts): a value sealed for one browser is refused in any other,
 * so an attacker cannot plant their own pending sign-in, reset code or emailed code in a victim's
 * browser. The seal key of the first SESSION_SECRET signs, every one's verifies (rotation,
 * app/.server/keys.ts).
 */
function mac(purpose: string, body: string, binding: string, key: Buffer): string {
  return createHmac('sha256', key).update(`${purpose}:${binding}:${body}`).digest('base64url')
}

/** `value` sealed under `purpose` for this browser's binding, valid for `maxAge` seconds. */
export function sealValue(purpose: string, value: string, binding: string, maxAge: number): string {
  const body = `${Math.floor(Date.now() / 1000) + maxAge}.${Buffer.from(value, 'utf8').toString('base64url')}`
  return `${body}.${mac(purpose, body, binding, signingKeys('seal')[0])}`
}

/** The value, or null when absent, tampered with, expired, or sealed for another browser. */
export function openValue(purpose: string, sealed: string | null, binding: string | null): string | null {
  const dot = sealed?.lastIndexOf('.') ?? -1
  if (!sealed || dot <= 0 || !binding) return null
  const body = sealed.slice(0, dot)
  const given = Buffer.from(sealed.slice(dot + 1))
  // No early exit, so the time taken does not tell which secret matched.
  const valid = signingKeys('seal').reduce((found, key) => {
    const expected = Buffer.from(mac(purpose, body, binding, key))
    return (expected.length === given.length && timingSafeEqual(expected, given)) || found
  }, false)
  const [expiry, payload, ...rest] = body.split('.')
  if (!valid || rest.length > 0 || !payload || !(Number(expiry) > Date.now() / 1000)) return null
  return Buffer.from(payload, 'base64url').toString('utf8')
}

/**
 * A value only this server can read, for a sealed cookie that carries a credential (ADR 036): the
 * seal proves who made it and for which browser, but its payload is only base64url. AES-256-GCM
 * under a key derived from a SESSION_SECRET and the purpose; the first secret encrypts, all decrypt.
 */
function encryptionKey(purpose: string, secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, '', `cookie-encryption:${purpose}`, 32))
}

export function encryptValue(purpose: string, value: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(purpose, getConfig().sessionSecrets[0] ?? ''), iv)
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
}

/** The value, or null when it was not encrypted here for this purpose (or was altered). */
export function decryptValue(purpose: string, encrypted: string): string | null {
  const raw = Buffer.from(encrypted, 'base64url')
  if (raw.length < 28) return null
  for (const secret of getConfig().sessionSecrets) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey(purpose, secret), raw.subarray(0, 12))
      decipher.setAuthTag(raw.subarray(12, 28))
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    } catch {
      // Another secret's, or altered.
    }
  }
  return null
}
