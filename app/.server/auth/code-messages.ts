import { groupOf, type AuthCode } from '~/.server/identity'
import type { TranslationKey } from '~/lib/i18n'

/**
 * What a visitor is shown for each `auth/*` code the identity client reports: the ONE translation
 * key (locales/*\/common.json) and the HTTP status of the page that shows it. The flows' own
 * exceptions (the sign-in answers every credentials code alike, an email link's mismatched
 * address…) sit in the flows, next to their reason.
 */

interface Row {
  key: TranslationKey
  status: 400 | 429 | 503
}

// A rejected form, not an HTTP authentication scheme: 401 would need a WWW-Authenticate challenge (ADR 028).
const credentials = { key: 'error.wrongCredentials', status: 400 } as const
const unexpected = { key: 'error.unexpected', status: 503 } as const
const captcha = { key: 'error.captchaRequired', status: 400 } as const
const link = { key: 'error.invalidLink', status: 400 } as const
const session = { key: 'error.sessionExpired', status: 400 } as const
const accountExists = { key: 'error.accountExists', status: 400 } as const
const notAllowed = { key: 'error.notAllowed', status: 400 } as const
const unauthorizedDomain = { key: 'error.unauthorizedDomain', status: 400 } as const
const mfaSessionInvalid = { key: 'mfa.sessionInvalid', status: 400 } as const

export const CODE_MESSAGES = {
  'auth/wrong-password': credentials,
  'auth/user-not-found': credentials,
  'auth/invalid-credential': credentials,
  'auth/user-disabled': credentials,
  'auth/missing-password': credentials,
  // Its own message; the sign-in answers it as one of the credentials (its group).
  'auth/invalid-email': { key: 'error.invalidEmail', status: 400 },
  'auth/too-many-requests': { key: 'error.tooManyRequests', status: 429 },
  'auth/network-request-failed': unexpected,
  'auth/internal-error': unexpected,
  'auth/invalid-api-key': unexpected,
  'auth/argument-error': unexpected,
  // A second factor is asked on its own step (app/.server/auth/second-factor); this code alone, with no
  // factor the portal can offer, is a failure.
  'auth/multi-factor-auth-required': unexpected,
  // The second-factor step: a wrong code keeps the step; the others end it (ADR 022).
  'auth/invalid-verification-code': { key: 'mfa.wrongCode', status: 400 },
  'auth/missing-verification-code': { key: 'mfa.codeRequired', status: 400 },
  'auth/code-expired': { key: 'mfa.expired', status: 400 },
  'auth/invalid-verification-id': mfaSessionInvalid,
  'auth/missing-verification-id': mfaSessionInvalid,
  'auth/invalid-multi-factor-session': mfaSessionInvalid,
  'auth/missing-multi-factor-session': mfaSessionInvalid,
  'auth/multi-factor-info-not-found': mfaSessionInvalid,
  'auth/missing-multi-factor-info': mfaSessionInvalid,
  // Adding a phone factor: what the visitor can correct, on the phone page (ADR 042).
  'auth/invalid-phone-number': { key: 'phoneEnrolment.badNumber', status: 400 },
  'auth/second-factor-already-in-use': { key: 'phoneEnrolment.exists', status: 400 },
  'auth/unverified-email': { key: 'phoneEnrolment.needsVerified', status: 400 },
  'auth/expired-action-code': link,
  'auth/invalid-action-code': link,
  'auth/weak-password': { key: 'error.weakPassword', status: 400 },
  // Captcha codes the visitor can fix by solving the captcha again.
  'auth/missing-recaptcha-token': captcha,
  'auth/invalid-recaptcha-token': captcha,
  'auth/invalid-recaptcha-action': captcha,
  // Captcha codes that mean our request or the project is misconfigured: a new captcha would not help.
  'auth/recaptcha-not-enabled': unexpected,
  'auth/missing-recaptcha-version': unexpected,
  'auth/invalid-recaptcha-version': unexpected,
  'auth/missing-client-type': unexpected,
  'auth/invalid-req-type': unexpected,
  'auth/user-token-expired': session,
  'auth/invalid-user-token': session,
  'auth/requires-recent-login': session,
  'auth/user-mismatch': session,
  'auth/email-already-in-use': { key: 'error.emailInUse', status: 400 },
  'auth/account-exists-with-different-credential': accountExists,
  'auth/credential-already-in-use': accountExists,
  'auth/unauthorized-continue-uri': unauthorizedDomain,
  'auth/unauthorized-domain': unauthorizedDomain,
  'auth/operation-not-allowed': notAllowed,
  'auth/admin-restricted-operation': notAllowed,
} as const satisfies Record<AuthCode, Row>

/** A message a code can show. */
export type MessageKey = (typeof CODE_MESSAGES)[AuthCode]['key']

/** The translation key and page status of a code. */
export function messageOf(code: AuthCode): (typeof CODE_MESSAGES)[AuthCode] {
  return CODE_MESSAGES[code]
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
