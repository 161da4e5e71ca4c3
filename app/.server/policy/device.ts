import { randomBytes } from 'node:crypto'
import { safeEqual, sign, signedBy } from '~/.server/cookie-format'
import { COOKIES, cookieName, getCookie, setCookie } from '~/.server/cookies'
import { signingKeys } from '~/.server/keys'

/**
 * Device cookies (OWASP, "Slow down online guessing attacks with device cookies"; ADR 015): after
 * a successful sign-in the browser gets a signed, long-lived cookie naming that account. A browser
 * that holds one is not subject to the per-account limit that counts failures from every client
 * (strangers could fill it and lock the owner out); it has its own per-device limit instead.
 *
 * Value: `id.expiry.account.mac`. `id` is random (the per-device limiter's key), `account` a keyed
 * hash of the canonical email (never the email), `mac` an HMAC of the rest, both under the device
 * key (app/.server/keys.ts). The first SESSION_SECRET's key signs; every one's verifies, the
 * account hash included, so rotation keeps devices.
 * One account per browser: the last that signed in.
 */
export const DEVICE_MAX_AGE = COOKIES.device.maxAge

export function deviceCookieName(): string {
  return cookieName(COOKIES.device)
}

function accountTag(email: string, key: Buffer): string {
  return sign('device', `device-account:${email.trim().toLowerCase()}`, key).slice(0, 22)
}

/** The Set-Cookie for a new device cookie naming this account. */
export function deviceCookie(email: string): string {
  const [key] = signingKeys('device')
  const expiry = Math.floor(Date.now() / 1000) + DEVICE_MAX_AGE
  const body = `${randomBytes(16).toString('base64url')}.${expiry}.${accountTag(email, key)}`
  return setCookie(COOKIES.device, `${body}.${sign('device', `device:${body}`, key)}`)
}

/** The parts of an authentic, unexpired device cookie, and the key that signed it; else null. */
function open(request: Request): { id: string; expiry: number; account: string; key: Buffer } | null {
  const raw = getCookie(request, COOKIES.device)
  const [id, expiry, account, given, ...rest] = raw?.split('.') ?? []
  if (!raw || !id || !expiry || !account || !given || rest.length > 0) return null
  if (!(Number(expiry) > Date.now() / 1000)) return null
  // The key that signed it also made its account hash.
  const key = signedBy('device', `device:${id}.${expiry}.${account}`, given)
  return key === null ? null : { id, expiry: Number(expiry), account, key }
}

/** The id of this browser's device cookie when it is authentic, unexpired and names `email`; else null. */
export function deviceIdFor(request: Request, email: string): string | null {
  const device = open(request)
  return device && safeEqual(device.account, accountTag(email, device.key)) ? device.id : null
}
