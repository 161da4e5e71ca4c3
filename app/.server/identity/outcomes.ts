import type { TranslationKey } from '~/lib/i18n'

/**
 * One row per `auth/*` code the server can report: the ONE translation key
 * (locales/*\/common.json) a screen shows for it, the HTTP status of a page that shows it, and
 * its group, which the flows read to decide what happens next. The flows' own exceptions (the
 * sign-in answers every credentials code alike, an email link's mismatched address…) sit in the
 * flows, next to their reason.
 */
export type OutcomeGroup =
  /** These credentials open no account; the sign-in answers them all alike (no enumeration). */
  | 'credentials'
  /** The service says too many requests. */
  | 'throttled'
  /** The service could not be reached or failed: nothing was judged. */
  | 'unavailable'
  /** Our request or the project is misconfigured: retrying would not help, nothing was judged. */
  | 'misconfigured'
  /** The emailed code is invalid, spent or expired. */
  | 'link'
  /** The reCAPTCHA check refused: the visitor can fix it by solving the captcha again. */
  | 'captcha'
  /** The new password or the address is refused. */
  | 'input'
  /** The ID token or the session is no longer good. */
  | 'session'
  /** Another account already holds this address or credential. */
  | 'account-exists'
  /** The project does not allow the operation or the domain. */
  | 'not-allowed'
  /** The second-factor step (ADR 022). */
  | 'second-factor'

interface Row {
  key: TranslationKey
  status: 400 | 429 | 503
  group: OutcomeGroup
}

// A rejected form, not an HTTP authentication scheme: 401 would need a WWW-Authenticate challenge (ADR 028).
const credentials = { key: 'error.wrongCredentials', status: 400, group: 'credentials' } as const
const unexpected = (group: 'unavailable' | 'misconfigured' | 'second-factor') =>
  ({ key: 'error.unexpected', status: 503, group }) as const
const captcha = { key: 'error.captchaRequired', status: 400, group: 'captcha' } as const
const link = { key: 'error.invalidLink', status: 400, group: 'link' } as const
const session = { key: 'error.sessionExpired', status: 400, group: 'session' } as const
const accountExists = { key: 'error.accountExists', status: 400, group: 'account-exists' } as const
const notAllowed = { key: 'error.notAllowed', status: 400, group: 'not-allowed' } as const
const unauthorizedDomain = { key: 'error.unauthorizedDomain', status: 400, group: 'not-allowed' } as const
const mfaSessionInvalid = { key: 'mfa.sessionInvalid', status: 400, group: 'second-factor' } as const

export const OUTCOMES = {
  'auth/wrong-password': credentials,
  'auth/user-not-found': credentials,
  'auth/invalid-credential': credentials,
  'auth/user-disabled': credentials,
  'auth/missing-password': credentials,
  // Elsewhere its own message; at sign-in one of the credentials (see OutcomeGroup).
  'auth/invalid-email': { key: 'error.invalidEmail', status: 400, group: 'credentials' },
  'auth/too-many-requests': { key: 'error.tooManyRequests', status: 429, group: 'throttled' },
  'auth/network-request-failed': unexpected('unavailable'),
  'auth/internal-error': unexpected('unavailable'),
  'auth/invalid-api-key': unexpected('misconfigured'),
  'auth/argument-error': unexpected('misconfigured'),
  // A second factor is asked on its own step (app/.server/auth/second-factor); this code alone, with no
  // factor the portal can offer, is a failure.
  'auth/multi-factor-auth-required': unexpected('second-factor'),
  // The second-factor step: a wrong code keeps the step; the others end it (ADR 022).
  'auth/invalid-verification-code': { key: 'mfa.wrongCode', status: 400, group: 'second-factor' },
  'auth/missing-verification-code': { key: 'mfa.codeRequired', status: 400, group: 'second-factor' },
  'auth/code-expired': { key: 'mfa.expired', status: 400, group: 'second-factor' },
  'auth/invalid-verification-id': mfaSessionInvalid,
  'auth/missing-verification-id': mfaSessionInvalid,
  'auth/invalid-multi-factor-session': mfaSessionInvalid,
  'auth/missing-multi-factor-session': mfaSessionInvalid,
  'auth/multi-factor-info-not-found': mfaSessionInvalid,
  'auth/missing-multi-factor-info': mfaSessionInvalid,
  // Adding a phone factor: what the visitor can correct, on the phone page (ADR 042).
  'auth/invalid-phone-number': { key: 'phoneEnrolment.badNumber', status: 400, group: 'input' },
  'auth/second-factor-already-in-use': { key: 'phoneEnrolment.exists', status: 400, group: 'input' },
  'auth/unverified-email': { key: 'phoneEnrolment.needsVerified', status: 400, group: 'input' },
  'auth/expired-action-code': link,
  'auth/invalid-action-code': link,
  'auth/weak-password': { key: 'error.weakPassword', status: 400, group: 'input' },
  // Captcha codes the visitor can fix by solving the captcha again.
  'auth/missing-recaptcha-token': captcha,
  'auth/invalid-recaptcha-token': captcha,
  'auth/invalid-recaptcha-action': captcha,
  // Captcha codes that mean our request or the project is misconfigured: a new captcha would not help.
  'auth/recaptcha-not-enabled': unexpected('misconfigured'),
  'auth/missing-recaptcha-version': unexpected('misconfigured'),
  'auth/invalid-recaptcha-version': unexpected('misconfigured'),
  'auth/missing-client-type': unexpected('misconfigured'),
  'auth/invalid-req-type': unexpected('misconfigured'),
  'auth/user-token-expired': session,
  'auth/invalid-user-token': session,
  'auth/requires-recent-login': session,
  'auth/user-mismatch': session,
  'auth/email-already-in-use': { key: 'error.emailInUse', status: 400, group: 'account-exists' },
  'auth/account-exists-with-different-credential': accountExists,
  'auth/credential-already-in-use': accountExists,
  'auth/unauthorized-continue-uri': unauthorizedDomain,
  'auth/unauthorized-domain': unauthorizedDomain,
  'auth/operation-not-allowed': notAllowed,
  'auth/admin-restricted-operation': notAllowed,
} as const satisfies Record<`auth/${string}`, Row>

export type AuthCode = keyof typeof OUTCOMES
export type Outcome = (typeof OUTCOMES)[AuthCode]
/** A message a code can show. */
export type MessageKey = Outcome['key']

export function isAuthCode(value: string): value is AuthCode {
  return Object.hasOwn(OUTCOMES, value)
}

/** The row of a code. */
export function outcomeOf(code: AuthCode): Outcome {
  return OUTCOMES[code]
}

export function groupOf(code: AuthCode | null): OutcomeGroup | null {
  return code === null ? null : OUTCOMES[code].group
}

/** Each code with its translation key, as a plain table. */
export const MESSAGE_KEYS = Object.fromEntries(Object.entries(OUTCOMES).map(([code, row]) => [code, row.key])) as {
  [C in AuthCode]: (typeof OUTCOMES)[C]['key']
}

/** The translation key for a code; unknown codes (e.g. browser-only ones) are error.unexpected. */
export function messageKeyFor(code: AuthCode | string): MessageKey {
  return isAuthCode(code) ? OUTCOMES[code].key : 'error.unexpected'
}

/** The emailed code is invalid, spent or expired: the invalid-link page, never an error page. */
export function isLinkFailure(code: AuthCode): boolean {
  return OUTCOMES[code].group === 'link'
}

/** The identity service could not make a check: the route answers with this status's error page. */
export interface Unavailable {
  unavailable: 429 | 503
}

/**
 * The status of the error page for a check the identity service could not make: 429 when it
 * says too many requests (what was checked may still be good later), else 503.
 */
export function unavailableStatus(code: AuthCode): 429 | 503 {
  return OUTCOMES[code].group === 'throttled' ? 429 : 503
}
