import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { getConfig } from './config'
import { signingKeys, type SigningPurpose } from './keys'

/**
 * How a cookie is written and read: the Set-Cookie syntax, signed values and sealed values. Which
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
 * Signed values: an HMAC-SHA256 under the `purpose`'s key of the first SESSION_SECRET, checked
 * against every one's (rotation, app/.server/keys.ts). The CSRF token and the device cookie use it.
 */
export function sign(purpose: SigningPurpose, data: string, key: Buffer = signingKeys(purpose)[0]): string {
  return createHmac('sha256', key).update(data).digest('base64url')
}

/** Compares in constant time; the length of what is compared is no secret. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** The key whose signature of `data` is `mac`, or null. */
export function signedBy(purpose: SigningPurpose, data: string, mac: string): Buffer | null {
  // No early exit, so the time taken does not tell which secret matched.
  return signingKeys(purpose).reduce<Buffer | null>(
    (found, key) => (safeEqual(mac, sign(purpose, data, key)) ? key : found),
    null,
  )
}

/**
 * Sealed values, the state of a flow kept in its cookie (ADR 047): AES-256-GCM under the flow key
 * of the first SESSION_SECRET (every one's decrypts), the expiry inside, and as additional data the
 * purpose (one cookie's value cannot be replayed as another's) and `binding`, the browser's own
 * secret (its CSRF token): a value sealed for one browser is refused in any other, so an attacker
 * cannot plant their own pending sign-in or emailed code in a victim's browser (ADR 017). Only
 * this server can read what a flow carries. Format: base64url of IV (12 bytes), tag (16), ciphertext.
 */
const IV = 12
const TAG = 16

function additionalData(purpose: string, binding: string): Buffer {
  return Buffer.from(`${purpose}\n${binding}`, 'utf8')
}

/** `value` sealed under `purpose` for this browser's binding, valid for `maxAge` seconds. */
export function sealValue(purpose: string, value: string, binding: string, maxAge: number): string {
  const iv = randomBytes(IV)
  const cipher = createCipheriv('aes-256-gcm', signingKeys('flow')[0], iv).setAAD(additionalData(purpose, binding))
  const plain = `${Math.floor(Date.now() / 1000) + maxAge}.${value}`
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
}

function decrypt(raw: Buffer, aad: Buffer, key: Buffer): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV)).setAAD(aad)
    decipher.setAuthTag(raw.subarray(IV, IV + TAG))
    return Buffer.concat([decipher.update(raw.subarray(IV + TAG)), decipher.final()]).toString('utf8')
  } catch {
    return null // another key's, another purpose's or browser's, or altered
  }
}

/** The value, or null when absent, altered, expired, or sealed for another purpose or browser. */
export function openValue(purpose: string, sealed: string | null, binding: string | null): string | null {
  if (!sealed || !binding) return null
  const raw = Buffer.from(sealed, 'base64url')
  if (raw.length <= IV + TAG) return null
  const aad = additionalData(purpose, binding)
  // Every key is tried, as for signatures.
  const plain = signingKeys('flow').reduce<string | null>((found, key) => decrypt(raw, aad, key) ?? found, null)
  const dot = plain?.indexOf('.') ?? -1
  if (plain === null || dot <= 0 || !(Number(plain.slice(0, dot)) > Date.now() / 1000)) return null
  return plain.slice(dot + 1)
}
