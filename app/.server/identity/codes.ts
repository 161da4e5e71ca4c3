export type CodeGroup =
  | 'credentials'
  | 'throttled'
  | 'unavailable'
  | 'misconfigured'
  | 'link'
  | 'captcha'
  | 'input'
  | 'session'
  | 'account-exists'
  | 'not-allowed'
  | 'second-factor'

export const CODE_GROUPS = {
  'auth/wrong-password': 'credentials',
  'auth/user-not-found': 'credentials',
  'auth/invalid-credential': 'credentials',
  'auth/user-disabled': 'credentials',
  'auth/missing-password': 'credentials',
  // The sign-in answers it as a credential error; other flows show it its own message.
  'auth/invalid-email': 'credentials',
  'auth/too-many-requests': 'throttled',
  'auth/network-request-failed': 'unavailable',
  'auth/internal-error': 'unavailable',
  'auth/invalid-api-key': 'misconfigured',
  'auth/argument-error': 'misconfigured',
  // Alone, with no factor the portal can offer, this code is a failure.
  'auth/multi-factor-auth-required': 'second-factor',
  'auth/invalid-verification-code': 'second-factor',
  'auth/missing-verification-code': 'second-factor',
  'auth/code-expired': 'second-factor',
  'auth/invalid-verification-id': 'second-factor',
  'auth/missing-verification-id': 'second-factor',
  'auth/invalid-multi-factor-session': 'second-factor',
  'auth/missing-multi-factor-session': 'second-factor',
  'auth/multi-factor-info-not-found': 'second-factor',
  'auth/missing-multi-factor-info': 'second-factor',
  'auth/invalid-phone-number': 'input',
  'auth/second-factor-already-in-use': 'input',
  'auth/unverified-email': 'input',
  'auth/expired-action-code': 'link',
  'auth/invalid-action-code': 'link',
  'auth/weak-password': 'input',
  'auth/missing-recaptcha-token': 'captcha',
  'auth/invalid-recaptcha-token': 'captcha',
  'auth/invalid-recaptcha-action': 'captcha',
  // A new captcha would not help: our request or the project is misconfigured.
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
  'auth/passkey-not-found': 'credentials',
} as const satisfies Record<`auth/${string}`, CodeGroup>

export type AuthCode = keyof typeof CODE_GROUPS

export function isAuthCode(value: string): value is AuthCode {
  return Object.hasOwn(CODE_GROUPS, value)
}

export function groupOf(code: AuthCode | null): CodeGroup | null {
  return code === null ? null : CODE_GROUPS[code]
}

export function isLinkFailure(code: AuthCode): boolean {
  return CODE_GROUPS[code] === 'link'
}
