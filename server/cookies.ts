import { createHmac, timingSafeEqual } from 'node:crypto'
import { getConfig } from './config'

export interface CookieOptions {
  maxAge?: number
  httpOnly?: boolean
  /** None only where a cross-site POST must bring the cookie back (SSO form_post), over https. */
  sameSite?: 'Lax' | 'Strict' | 'None'
}

/** Cookies over https are Secure; on plain-http localhost (development) they cannot be. */
export function isSecureOrigin(): boolean {
  return getConfig().publicOrigin.startsWith('https:')
}

/** A host-only cookie (never a Domain attribute) on Path=/, the only kind the portal sets. */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', `SameSite=${options.sameSite ?? 'Lax'}`]
  if (options.maxAge !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(options.maxAge))}`)
  if (options.httpOnly ?? true) parts.push('HttpOnly')
  if (isSecureOrigin()) parts.push('Secure')
  return parts.join('; ')
}

export function expireCookie(name: string, options: Omit<CookieOptions, 'maxAge'> = {}): string {
  return serializeCookie(name, '', { ...options, maxAge: 0 })
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
 * Sealed cookie values: `expiry.payload.mac`, the payload base64url, the HMAC bound to a purpose
 * so that one cookie's value cannot be replayed as another's. The first SESSION_SECRET signs,
 * all verify (rotation). Used by the email-link, emailed-action and single-sign-on cookies.
 */
function mac(purpose: string, body: string, secret: string): string {
  return createHmac('sha256', secret).update(`${purpose}:${body}`).digest('base64url')
}

export function sealedCookie(
  name: string,
  purpose: string,
  value: string,
  maxAge: number,
  options: CookieOptions = {},
): string {
  const body = `${Math.floor(Date.now() / 1000) + maxAge}.${Buffer.from(value, 'utf8').toString('base64url')}`
  const secret = getConfig().sessionSecrets[0] ?? ''
  return serializeCookie(name, `${body}.${mac(purpose, body, secret)}`, { ...options, maxAge, httpOnly: true })
}

export function openSealedCookie(request: Request, name: string, purpose: string): string | null {
  const sealed = readCookie(request.headers.get('Cookie'), name)
  const dot = sealed?.lastIndexOf('.') ?? -1
  if (!sealed || dot <= 0) return null
  const body = sealed.slice(0, dot)
  const given = Buffer.from(sealed.slice(dot + 1))
  const valid = getConfig().sessionSecrets.reduce((found, secret) => {
    const expected = Buffer.from(mac(purpose, body, secret))
    return (expected.length === given.length && timingSafeEqual(expected, given)) || found
  }, false)
  const [expiry, payload, ...rest] = body.split('.')
  if (!valid || rest.length > 0 || !payload || !(Number(expiry) > Date.now() / 1000)) return null
  return Buffer.from(payload, 'base64url').toString('utf8')
}
