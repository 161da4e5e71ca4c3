import { randomBytes } from 'node:crypto'
import { safeEqual, sign, signedBy } from '~/.server/cookie-format'
import { COOKIES, cookieName, getCookie, setCookie } from '~/.server/cookies'
import { signingKeys } from '~/.server/keys'

// A browser holding this signed cookie has its own per-device limit instead of the per-account one, which
// strangers could fill to lock the owner out (see ADR 015). It names the account by a keyed hash, never the email.
export const DEVICE_MAX_AGE = COOKIES.device.maxAge

export function deviceCookieName(): string {
  return cookieName(COOKIES.device)
}

function accountTag(email: string, key: Buffer): string {
  return sign('device', `device-account:${email.trim().toLowerCase()}`, key).slice(0, 22)
}

export function deviceCookie(email: string): string {
  const [key] = signingKeys('device')
  const expiry = Math.floor(Date.now() / 1000) + DEVICE_MAX_AGE
  const body = `${randomBytes(16).toString('base64url')}.${expiry}.${accountTag(email, key)}`
  return setCookie(COOKIES.device, `${body}.${sign('device', `device:${body}`, key)}`)
}

function open(request: Request): { id: string; expiry: number; account: string; key: Buffer } | null {
  const raw = getCookie(request, COOKIES.device)
  const [id, expiry, account, given, ...rest] = raw?.split('.') ?? []
  if (!raw || !id || !expiry || !account || !given || rest.length > 0) return null
  if (!(Number(expiry) > Date.now() / 1000)) return null
  // The key that signed it also made its account hash.
  const key = signedBy('device', `device:${id}.${expiry}.${account}`, given)
  return key === null ? null : { id, expiry: Number(expiry), account, key }
}

export function deviceIdFor(request: Request, email: string): string | null {
  const device = open(request)
  return device && safeEqual(device.account, accountTag(email, device.key)) ? device.id : null
}
