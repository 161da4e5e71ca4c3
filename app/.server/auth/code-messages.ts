import { groupOf, type AuthCode, type CodeGroup } from '~/.server/identity'
import type { TranslationKey } from '~/lib/i18n'

/**
 * What a visitor is shown for each `auth/*` code the identity client reports: the ONE translation
 * key (locales/*\/common.json) and the HTTP status of the page that shows it, its group's unless
 * the code has a message of its own. The flows' own exceptions (the sign-in answers every
 * credentials code alike, an email link's mismatched address…) sit in the flows, next to their reason.
 */

interface Row {
  key: TranslationKey
  status: 400 | 429 | 503
}

// A rejected form, not an HTTP authentication scheme: 401 would need a WWW-Authenticate challenge (ADR 028).
const unexpected = { key: 'error.unexpected', status: 503 } as const

/** What a code shows unless it has a message of its own (below): its group's. */
const BY_GROUP = {
  credentials: { key: 'error.wrongCredentials', status: 400 },
  throttled: { key: 'error.tooManyRequests', status: 429 },
  unavailable: unexpected,
  misconfigured: unexpected,
  link: { key: 'error.invalidLink', status: 400 },
  captcha: { key: 'error.captchaRequired', status: 400 },
  // Each names what to correct: they all have a message of their own.
  input: null,
  session: { key: 'error.sessionExpired', status: 400 },
  'account-exists': { key: 'error.accountExists', status: 400 },
  'not-allowed': { key: 'error.notAllowed', status: 400 },
  // The second-factor step's session is gone: the step starts again (ADR 022).
  'second-factor': { key: 'mfa.sessionInvalid', status: 400 },
} as const satisfies Record<CodeGroup, Row | null>

/** The codes that show a message other than their group's. */
const OWN = {
  // The sign-in answers it as one of the credentials (its group); the other flows name it.
  'auth/invalid-email': { key: 'error.invalidEmail', status: 400 },
  'auth/email-already-in-use': { key: 'error.emailInUse', status: 400 },
  'auth/unauthorized-continue-uri': { key: 'error.unauthorizedDomain', status: 400 },
  'auth/unauthorized-domain': { key: 'error.unauthorizedDomain', status: 400 },
  // A second factor is asked on its own step (app/.server/auth/second-factor); this code alone, with no
  // factor the portal can offer, is a failure.
  'auth/multi-factor-auth-required': unexpected,
  // The second-factor step: a wrong code keeps the step (ADR 022).
  'auth/invalid-verification-code': { key: 'mfa.wrongCode', status: 400 },
  'auth/missing-verification-code': { key: 'mfa.codeRequired', status: 400 },
  'auth/code-expired': { key: 'mfa.expired', status: 400 },
  // Adding a phone factor: what the visitor can correct, on the phone page (ADR 042).
  'auth/invalid-phone-number': { key: 'phoneEnrolment.badNumber', status: 400 },
  'auth/second-factor-already-in-use': { key: 'phoneEnrolment.exists', status: 400 },
  'auth/unverified-email': { key: 'phoneEnrolment.needsVerified', status: 400 },
  'auth/weak-password': { key: 'error.weakPassword', status: 400 },
} as const satisfies Partial<Record<AuthCode, Row>>

/** What a code shows: its translation key and the status of the page that shows it. */
export type Message = NonNullable<(typeof BY_GROUP)[CodeGroup]> | (typeof OWN)[keyof typeof OWN]

/** A message a code can show. */
export type MessageKey = Message['key']

/** The translation key and page status of a code. */
export function messageOf(code: AuthCode): Message {
  const group = groupOf(code)
  const message = Object.hasOwn(OWN, code) ? OWN[code as keyof typeof OWN] : group && BY_GROUP[group]
  // Only the input group has no message of its own, and each of its codes has one (the unit test reads them all).
  if (!message) throw new Error(`${code} has no message`)
  return message
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
  return groupOf(code) === 'throttled' ? 429 : 503
}
