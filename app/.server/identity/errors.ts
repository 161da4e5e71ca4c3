/** Every auth/* code the client reports and its group; then how the service's errors become those codes. */
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
} as const satisfies Record<`auth/${string}`, string>

export type AuthCode = keyof typeof CODE_GROUPS
export type CodeGroup = (typeof CODE_GROUPS)[AuthCode]

export function groupOf(code: AuthCode | null): CodeGroup | null {
  return code === null ? null : CODE_GROUPS[code]
}

export function isLinkFailure(code: AuthCode): boolean {
  return CODE_GROUPS[code] === 'link'
}

export const SERVICE_ERRORS = {
  INVALID_PASSWORD: 'auth/wrong-password',
  EMAIL_NOT_FOUND: 'auth/user-not-found',
  INVALID_LOGIN_CREDENTIALS: 'auth/invalid-credential',
  USER_DISABLED: 'auth/user-disabled',
  MISSING_PASSWORD: 'auth/missing-password',
  TOO_MANY_ATTEMPTS_TRY_LATER: 'auth/too-many-requests',
  RESET_PASSWORD_EXCEED_LIMIT: 'auth/too-many-requests',
  QUOTA_EXCEEDED: 'auth/too-many-requests',
  EXPIRED_OOB_CODE: 'auth/expired-action-code',
  INVALID_OOB_CODE: 'auth/invalid-action-code',
  // A link without a code is an invalid link, whatever the cause.
  MISSING_OOB_CODE: 'auth/invalid-action-code',
  WEAK_PASSWORD: 'auth/weak-password',
  // The project's own password policy refused it: to the visitor, a weak password.
  PASSWORD_DOES_NOT_MEET_REQUIREMENTS: 'auth/weak-password',
  INVALID_EMAIL: 'auth/invalid-email',
  MISSING_EMAIL: 'auth/invalid-email',
  INVALID_IDENTIFIER: 'auth/invalid-email',
  MISSING_RECAPTCHA_TOKEN: 'auth/missing-recaptcha-token',
  INVALID_RECAPTCHA_TOKEN: 'auth/invalid-recaptcha-token',
  INVALID_RECAPTCHA_ACTION: 'auth/invalid-recaptcha-action',
  RECAPTCHA_NOT_ENABLED: 'auth/recaptcha-not-enabled',
  MISSING_RECAPTCHA_VERSION: 'auth/missing-recaptcha-version',
  INVALID_RECAPTCHA_VERSION: 'auth/invalid-recaptcha-version',
  MISSING_CLIENT_TYPE: 'auth/missing-client-type',
  INVALID_REQ_TYPE: 'auth/invalid-req-type',
  TOKEN_EXPIRED: 'auth/user-token-expired',
  // As the Firebase JS SDK does: an ID token whose user is gone is an expired session.
  USER_NOT_FOUND: 'auth/user-token-expired',
  INVALID_ID_TOKEN: 'auth/invalid-user-token',
  MISSING_ID_TOKEN: 'auth/invalid-user-token',
  INVALID_REFRESH_TOKEN: 'auth/invalid-user-token',
  MISSING_REFRESH_TOKEN: 'auth/invalid-user-token',
  CREDENTIAL_TOO_OLD_LOGIN_AGAIN: 'auth/requires-recent-login',
  USER_MISMATCH: 'auth/user-mismatch',
  INVALID_API_KEY: 'auth/invalid-api-key',
  API_KEY_INVALID: 'auth/invalid-api-key',
  OPERATION_NOT_ALLOWED: 'auth/operation-not-allowed',
  PASSWORD_LOGIN_DISABLED: 'auth/operation-not-allowed',
  PROJECT_DISABLED: 'auth/operation-not-allowed', // (emulator)
  ADMIN_ONLY_OPERATION: 'auth/admin-restricted-operation',
  EMAIL_EXISTS: 'auth/email-already-in-use',
  UNAUTHORIZED_DOMAIN: 'auth/unauthorized-continue-uri',
  UNAUTHORIZED_CONTINUE_URI: 'auth/unauthorized-continue-uri',
  INVALID_CONTINUE_URI: 'auth/unauthorized-continue-uri',
  INVALID_IDP_RESPONSE: 'auth/invalid-credential',
  INVALID_PENDING_TOKEN: 'auth/invalid-credential',
  FEDERATED_USER_ID_ALREADY_LINKED: 'auth/credential-already-in-use',
  CREDENTIAL_ALREADY_IN_USE: 'auth/credential-already-in-use', // (emulator)
  NEED_CONFIRMATION: 'auth/account-exists-with-different-credential',
  INVALID_CODE: 'auth/invalid-verification-code',
  MISSING_CODE: 'auth/missing-verification-code',
  SESSION_EXPIRED: 'auth/code-expired',
  INVALID_SESSION_INFO: 'auth/invalid-verification-id',
  MISSING_SESSION_INFO: 'auth/missing-verification-id',
  INVALID_MFA_PENDING_CREDENTIAL: 'auth/invalid-multi-factor-session',
  MISSING_MFA_PENDING_CREDENTIAL: 'auth/missing-multi-factor-session',
  MFA_ENROLLMENT_NOT_FOUND: 'auth/multi-factor-info-not-found',
  MISSING_MFA_ENROLLMENT_ID: 'auth/missing-multi-factor-info',
  INVALID_PHONE_NUMBER: 'auth/invalid-phone-number',
  SECOND_FACTOR_EXISTS: 'auth/second-factor-already-in-use',
  UNVERIFIED_EMAIL: 'auth/unverified-email',
  PASSKEY_CREDENTIAL_NOT_FOUND: 'auth/passkey-not-found',
} as const satisfies Record<string, AuthCode>

export function serviceErrorName(message: string): string | null {
  const match = /^\s*([A-Z][A-Z0-9_]*[A-Z0-9])(?=$|[\s:(])/.exec(message)
  return match?.[1] ?? null
}

export function authCodeFor(serviceMessage: string | null | undefined): AuthCode {
  const name = serviceMessage ? serviceErrorName(serviceMessage) : null
  return name !== null && Object.hasOwn(SERVICE_ERRORS, name)
    ? SERVICE_ERRORS[name as keyof typeof SERVICE_ERRORS]
    : 'auth/internal-error'
}

/** The message is the code only: never a token, an email, a URL or the service's free text. */
export class IdentityError extends Error {
  override readonly name = 'IdentityError'
  constructor(
    readonly code: AuthCode,
    readonly status?: number,
    readonly reason?: string,
  ) {
    super(code)
  }
}

export type SecondFactor =
  | { kind: 'phone'; id: string; displayName: string | null; phone: string }
  | { kind: 'totp'; id: string; displayName: string | null }

export interface MfaRequired {
  pendingCredential: string
  factors: SecondFactor[]
  email: string | null
}

/** The pending credential is non-enumerable, so a logger or error reporter that serialises the error never sees it. */
export function multiFactorRequired(status: number, mfa: MfaRequired): IdentityError {
  const error = new IdentityError('auth/multi-factor-auth-required', status, 'MFA_REQUIRED')
  Object.defineProperty(error, 'mfa', { value: mfa, enumerable: false })
  return error
}

export function mfaRequiredOf(error: unknown): MfaRequired | null {
  if (!isIdentityError(error) || error.code !== 'auth/multi-factor-auth-required') return null
  const mfa = (error as IdentityError & { mfa?: MfaRequired }).mfa
  return mfa && typeof mfa.pendingCredential === 'string' && mfa.factors.length > 0 ? mfa : null
}

export function isIdentityError(error: unknown): error is IdentityError {
  return error instanceof IdentityError
}

export function codeOf(error: unknown): AuthCode {
  return isIdentityError(error) ? error.code : 'auth/internal-error'
}
