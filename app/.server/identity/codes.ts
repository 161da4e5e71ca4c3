/**
 * Every `auth/*` code the identity client reports, with its group: what kind of answer it is, which
 * the flows read to decide what happens next. What a visitor is shown for a code (its translation
 * key, and the status of the page) is the flows' to say: app/.server/auth/code-messages.ts.
 */
export type CodeGroup =
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

export const CODE_GROUPS = {
  'auth/wrong-password': 'credentials',
  'auth/user-not-found': 'credentials',
  'auth/invalid-credential': 'credentials',
  'auth/user-disabled': 'credentials',
  'auth/missing-password': 'credentials',
  // One of the credentials, which the sign-in answers alike; the other flows show it its own message.
  'auth/invalid-email': 'credentials',
  'auth/too-many-requests': 'throttled',
  'auth/network-request-failed': 'unavailable',
  'auth/internal-error': 'unavailable',
  'auth/invalid-api-key': 'misconfigured',
  'auth/argument-error': 'misconfigured',
  // A second factor is asked on its own step (app/.server/auth/second-factor); this code alone, with no
  // factor the portal can offer, is a failure.
  'auth/multi-factor-auth-required': 'second-factor',
  // The second-factor step: a wrong code keeps the step; the others end it (ADR 022).
  'auth/invalid-verification-code': 'second-factor',
  'auth/missing-verification-code': 'second-factor',
  'auth/code-expired': 'second-factor',
  'auth/invalid-verification-id': 'second-factor',
  'auth/missing-verification-id': 'second-factor',
  'auth/invalid-multi-factor-session': 'second-factor',
  'auth/missing-multi-factor-session': 'second-factor',
  'auth/multi-factor-info-not-found': 'second-factor',
  'auth/missing-multi-factor-info': 'second-factor',
  // Adding a phone factor: what the visitor can correct, on the phone page (ADR 042).
  'auth/invalid-phone-number': 'input',
  'auth/second-factor-already-in-use': 'input',
  'auth/unverified-email': 'input',
  'auth/expired-action-code': 'link',
  'auth/invalid-action-code': 'link',
  'auth/weak-password': 'input',
  // Captcha codes the visitor can fix by solving the captcha again.
  'auth/missing-recaptcha-token': 'captcha',
  'auth/invalid-recaptcha-token': 'captcha',
  'auth/invalid-recaptcha-action': 'captcha',
  // Captcha codes that mean our request or the project is misconfigured: a new captcha would not help.
  'auth/recaptcha-not-enabled': 'misconfigured',
  'auth/missing-recaptcha-version': 'misconfigured',
  'auth/invalid-recaptcha-version': 'misconfigured',
  'auth/missing-client-type': 'misconfigured',
  'auth/invalid-req-type': 'misconfigured',
  'auth/user-token-expired': 'session',
  'auth/invalid-user-token': 'session',
  'auth/requires-recent-login': 'session',
  'auth/user-mismatch': 'session',
  'auth/email-already-in-use': 'account-exists',
  'auth/account-exists-with-different-credential': 'account-exists',
  'auth/credential-already-in-use': 'account-exists',
  'auth/unauthorized-continue-uri': 'not-allowed',
  'auth/unauthorized-domain': 'not-allowed',
  'auth/operation-not-allowed': 'not-allowed',
  'auth/admin-restricted-operation': 'not-allowed',
  // A passkey no account holds (removed, or its account deleted): the passkey flow names it.
  'auth/passkey-not-found': 'credentials',
} as const satisfies Record<`auth/${string}`, CodeGroup>

export type AuthCode = keyof typeof CODE_GROUPS

export function isAuthCode(value: string): value is AuthCode {
  return Object.hasOwn(CODE_GROUPS, value)
}

export function groupOf(code: AuthCode | null): CodeGroup | null {
  return code === null ? null : CODE_GROUPS[code]
}

/** The emailed code is invalid, spent or expired: the invalid-link page, never an error page. */
export function isLinkFailure(code: AuthCode): boolean {
  return CODE_GROUPS[code] === 'link'
}
