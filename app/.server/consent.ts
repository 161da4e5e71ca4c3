import { readCookie } from './cookies'

export const CONSENT_COOKIE = 'cookie_consent'
export const CONSENT_MAX_AGE = 365 * 24 * 60 * 60

export function hasConsented(request: Request): boolean {
  return readCookie(request.headers.get('Cookie'), CONSENT_COOKIE) === '1'
}
