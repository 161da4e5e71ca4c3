import { LOCALE_COOKIE } from '~/lib/i18n'
import { getConfig } from './config'

function isSecureOrigin(): boolean {
  return getConfig().publicOrigin.startsWith('https:')
}

export interface CookieSpec {
  base: string
  purpose: string
  maxAge: number | null
  /** Browsers refuse None without Secure, so on plain http it is Lax. */
  sameSite: 'Lax' | 'None'
  hostPrefix: boolean
  sealedAs: string | null
  /** Logout leaves preferences, the CSRF token and the device cookie alone (see ADR 028). */
  atLogout: 'clear' | 'keep'
  /** An anonymous form page is the same for every holder of this cookie, so it still gets a page shell. */
  shellNeutral: boolean
}

const YEAR = 365 * 24 * 60 * 60
const HOUR = 60 * 60

const FLOW = { sameSite: 'Lax', hostPrefix: true, atLogout: 'clear', shellNeutral: false } as const
const KEPT = { sameSite: 'Lax', hostPrefix: true, sealedAs: null, atLogout: 'keep', shellNeutral: true } as const
const PREFERENCE = { ...KEPT, maxAge: YEAR, hostPrefix: false } as const

/** A flow's sealed cookie: its values are sealed under its name with hyphens. */
const sealed = (base: string, maxAge: number, purpose: string) =>
  ({ ...FLOW, base, purpose, maxAge, sealedAs: base.replaceAll('_', '-') }) as const

export const COOKIES = {
  session: {
    ...FLOW,
    base: 'session',
    purpose:
      'the random id of this browser\'s session record (app/.server/auth/session.ts, ADR 063): it ends with the browser, unless "Keep me signed in" gives it SESSION_REMEMBER_MAX_AGE (ADR 037)',
    maxAge: null,
    sealedAs: null,
  },
  csrf: {
    ...KEPT,
    base: 'csrf',
    purpose: 'the signed double-submit CSRF token, and the binding of the flow cookies (app/.server/policy/csrf.ts)',
    maxAge: null,
  },
  ssoState: {
    ...sealed(
      'sso_state',
      10 * 60,
      'the pending SSO sign-in; a form_post provider comes back with a cross-site POST (app/.server/auth/sso/state-cookie.ts)',
    ),
    sameSite: 'None',
  },
  mfaPending: sealed(
    'mfa_pending',
    10 * 60,
    'the pending second-factor sign-in, as long as the identity service keeps its credential usable, about 10 minutes (app/.server/auth/second-factor/pending.ts)',
  ),
  phoneEnrolment: sealed(
    'phone_enrolment',
    10 * 60,
    'a phone being added as a second factor: its number, SMS session and when the code went, as long as the identity service keeps the session (app/routes/account.second-factor.phone.server.ts, ADR 042)',
  ),
  emailLink: sealed(
    'email_link',
    HOUR,
    'the address that asked for a sign-in link in this browser (app/.server/auth/email-link.ts)',
  ),
  emailSent: sealed(
    'email_sent',
    HOUR,
    'which email was just asked for in this browser (a reset, a sign-in link, a sign-up, a verification, an address change), to which address as typed, and when: the page that says it went shows the address and offers to send it again after a wait (app/.server/auth/email-sent.ts, ADRs 075 and 083)',
  ),
  resetCode: sealed(
    'reset_code',
    HOUR,
    'the emailed reset code, out of the address bar (app/routes/new-password.server.ts)',
  ),
  resetDone: sealed(
    'reset_done',
    10 * 60,
    'the password was just changed in this browser: /new-password says so from a GET, so a refresh sends nothing again and the title follows (app/routes/new-password.tsx)',
  ),
  logoutDone: {
    ...sealed(
      'logout_done',
      10 * 60,
      'this browser just logged out, here or on every device: /logout says which from a GET, so a reload or Forward posts nothing again (app/.server/auth/logout.ts, ADR 071)',
    ),
    // Set by the logout itself, which clears the others.
    atLogout: 'keep',
  },
  actionCode: sealed(
    'action_code',
    HOUR,
    'the emailed code of every other link mode (app/.server/auth/email-actions.ts)',
  ),
  mfaEnrollment: sealed(
    'mfa_enrollment',
    10 * 60,
    'an authenticator app being added: its enrolment session and secret, as long as the identity service keeps the session (app/.server/auth/second-factors.ts, ADR 041)',
  ),
  passkeyChallenge: sealed(
    'passkey_challenge',
    10 * 60,
    'the challenge of a passkey ceremony under way in this browser, good for 5 minutes and one answer; the cookie outlives it so that a late answer is told it timed out (app/.server/auth/passkey-challenge.ts, ADR 067)',
  ),
  locale: {
    ...PREFERENCE,
    base: LOCALE_COOKIE,
    purpose: 'the language chosen with the switch (app/.server/i18n.ts)',
  },
  consent: {
    ...PREFERENCE,
    base: 'cookie_consent',
    purpose: 'the privacy notice was accepted (app/.server/preferences.ts)',
  },
  device: {
    ...KEPT,
    base: 'device',
    purpose:
      'a signed device cookie naming the last account signed in here, out of its lock-out (app/.server/policy/rate-limit.ts, ADR 015)',
    maxAge: YEAR,
  },
} as const satisfies Record<string, CookieSpec>

export type SealedCookie = CookieSpec & { sealedAs: string; maxAge: number }

export function cookieName(cookie: CookieSpec): string {
  // `__Host-` over https: browsers accept it only from this exact
  // host, so no sibling subdomain or network attacker can plant it.
  return cookie.hostPrefix && isSecureOrigin() ? `__Host-${cookie.base}` : cookie.base
}

export function allNames(cookie: CookieSpec): string[] {
  return cookie.hostPrefix ? [cookie.base, `__Host-${cookie.base}`] : [cookie.base]
}

/** Every cookie is HttpOnly: no script of the portal reads one. */
function serialize(cookie: CookieSpec, value: string, maxAge: number | null): string {
  const secure = isSecureOrigin()
  const sameSite = cookie.sameSite === 'None' && !secure ? 'Lax' : cookie.sameSite
  const parts = [`${cookieName(cookie)}=${encodeURIComponent(value)}`, 'Path=/', `SameSite=${sameSite}`]
  if (maxAge !== null) parts.push(`Max-Age=${Math.max(0, Math.floor(maxAge))}`)
  parts.push('HttpOnly')
  if (secure) parts.push('Secure')
  return parts.join('; ')
}

export function setCookie(cookie: CookieSpec, value: string, options: { maxAge?: number } = {}): string {
  return serialize(cookie, value, options.maxAge ?? cookie.maxAge)
}

export function getCookie(request: Request, cookie: CookieSpec): string | null {
  const name = cookieName(cookie)
  for (const part of request.headers.get('Cookie')?.split(';') ?? []) {
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

export function clearCookie(cookie: CookieSpec): string {
  return serialize(cookie, '', 0)
}
