import { getConfig } from './config'

export interface CookieOptions {
  maxAge?: number
  httpOnly?: boolean
  sameSite?: 'Lax' | 'Strict'
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
