import { describe, expect, it } from 'vitest'
import { IdentityError, SERVICE_ERRORS, authCodeFor, serviceErrorName, type AuthCode } from './errors'

// Written out again on purpose: a change to the table must be a change to this test too.
const expectedServiceErrors: Array<[string, AuthCode]> = [
  ['INVALID_PASSWORD', 'auth/wrong-password'],
  ['EMAIL_NOT_FOUND', 'auth/user-not-found'],
  ['INVALID_LOGIN_CREDENTIALS', 'auth/invalid-credential'],
  ['USER_DISABLED', 'auth/user-disabled'],
  ['MISSING_PASSWORD', 'auth/missing-password'],
  ['TOO_MANY_ATTEMPTS_TRY_LATER', 'auth/too-many-requests'],
  ['RESET_PASSWORD_EXCEED_LIMIT', 'auth/too-many-requests'],
  ['QUOTA_EXCEEDED', 'auth/too-many-requests'],
  ['EXPIRED_OOB_CODE', 'auth/expired-action-code'],
  ['INVALID_OOB_CODE', 'auth/invalid-action-code'],
  ['MISSING_OOB_CODE', 'auth/invalid-action-code'],
  ['WEAK_PASSWORD', 'auth/weak-password'],
  ['PASSWORD_DOES_NOT_MEET_REQUIREMENTS', 'auth/weak-password'],
  ['INVALID_EMAIL', 'auth/invalid-email'],
  ['MISSING_EMAIL', 'auth/invalid-email'],
  ['INVALID_IDENTIFIER', 'auth/invalid-email'],
  ['MISSING_RECAPTCHA_TOKEN', 'auth/missing-recaptcha-token'],
  ['INVALID_RECAPTCHA_TOKEN', 'auth/invalid-recaptcha-token'],
  ['INVALID_RECAPTCHA_ACTION', 'auth/invalid-recaptcha-action'],
  ['RECAPTCHA_NOT_ENABLED', 'auth/recaptcha-not-enabled'],
  ['MISSING_RECAPTCHA_VERSION', 'auth/missing-recaptcha-version'],
  ['INVALID_RECAPTCHA_VERSION', 'auth/invalid-recaptcha-version'],
  ['MISSING_CLIENT_TYPE', 'auth/missing-client-type'],
  ['INVALID_REQ_TYPE', 'auth/invalid-req-type'],
  ['TOKEN_EXPIRED', 'auth/user-token-expired'],
  ['USER_NOT_FOUND', 'auth/user-token-expired'],
  ['INVALID_ID_TOKEN', 'auth/invalid-user-token'],
  ['MISSING_ID_TOKEN', 'auth/invalid-user-token'],
  ['INVALID_REFRESH_TOKEN', 'auth/invalid-user-token'],
  ['MISSING_REFRESH_TOKEN', 'auth/invalid-user-token'],
  ['CREDENTIAL_TOO_OLD_LOGIN_AGAIN', 'auth/requires-recent-login'],
  ['USER_MISMATCH', 'auth/user-mismatch'],
  ['INVALID_API_KEY', 'auth/invalid-api-key'],
  ['API_KEY_INVALID', 'auth/invalid-api-key'],
  ['OPERATION_NOT_ALLOWED', 'auth/operation-not-allowed'],
  ['PASSWORD_LOGIN_DISABLED', 'auth/operation-not-allowed'],
  ['PROJECT_DISABLED', 'auth/operation-not-allowed'],
  ['ADMIN_ONLY_OPERATION', 'auth/admin-restricted-operation'],
  ['EMAIL_EXISTS', 'auth/email-already-in-use'],
  ['UNAUTHORIZED_DOMAIN', 'auth/unauthorized-continue-uri'],
  ['UNAUTHORIZED_CONTINUE_URI', 'auth/unauthorized-continue-uri'],
  ['INVALID_CONTINUE_URI', 'auth/unauthorized-continue-uri'],
  ['INVALID_IDP_RESPONSE', 'auth/invalid-credential'],
  ['INVALID_PENDING_TOKEN', 'auth/invalid-credential'],
  ['FEDERATED_USER_ID_ALREADY_LINKED', 'auth/credential-already-in-use'],
  ['CREDENTIAL_ALREADY_IN_USE', 'auth/credential-already-in-use'],
  ['NEED_CONFIRMATION', 'auth/account-exists-with-different-credential'],
  ['INVALID_CODE', 'auth/invalid-verification-code'],
  ['MISSING_CODE', 'auth/missing-verification-code'],
  ['SESSION_EXPIRED', 'auth/code-expired'],
  ['INVALID_SESSION_INFO', 'auth/invalid-verification-id'],
  ['MISSING_SESSION_INFO', 'auth/missing-verification-id'],
  ['INVALID_MFA_PENDING_CREDENTIAL', 'auth/invalid-multi-factor-session'],
  ['MISSING_MFA_PENDING_CREDENTIAL', 'auth/missing-multi-factor-session'],
  ['MFA_ENROLLMENT_NOT_FOUND', 'auth/multi-factor-info-not-found'],
  ['INVALID_PHONE_NUMBER', 'auth/invalid-phone-number'],
  ['SECOND_FACTOR_EXISTS', 'auth/second-factor-already-in-use'],
  ['UNVERIFIED_EMAIL', 'auth/unverified-email'],
  ['MISSING_MFA_ENROLLMENT_ID', 'auth/missing-multi-factor-info'],
  ['PASSKEY_CREDENTIAL_NOT_FOUND', 'auth/passkey-not-found'],
]

describe('service messages → auth codes', () => {
  it.each(expectedServiceErrors)('%s → %s', (message, code) => {
    expect(authCodeFor(message)).toBe(code)
  })

  it('the table has exactly the rows tested above', () => {
    expect(Object.entries(SERVICE_ERRORS).sort()).toEqual([...expectedServiceErrors].sort())
  })

  it.each([
    ['WEAK_PASSWORD : Password should be at least 6 characters', 'auth/weak-password'],
    ['TOO_MANY_ATTEMPTS_TRY_LATER : Access to this account has been temporarily disabled', 'auth/too-many-requests'],
    ['INVALID_IDP_RESPONSE ((Missing assertion in SAMLResponse.))', 'auth/invalid-credential'],
    [
      'INVALID_CONTINUE_URI : ((expected an absolute URI with valid scheme and host))',
      'auth/unauthorized-continue-uri',
    ],
    ['TENANT_ID_MISMATCH: ((Refresh token tenant ID does not match target tenant ID.))', 'auth/internal-error'],
  ])('takes the name before the details: %s', (message, code) => {
    expect(authCodeFor(message)).toBe(code)
  })

  it.each([
    'SOMETHING_NEW',
    'Invalid JSON payload received. Unknown name "x"',
    'getRecaptchaConfig is not implemented in the Auth Emulator.',
    'invalid_password',
    'INVALID_PASSWORDX',
    'toString',
    '__proto__',
    '',
  ])('unknown %j → auth/internal-error', (message) => {
    expect(authCodeFor(message)).toBe('auth/internal-error')
  })

  it('null and undefined → auth/internal-error', () => {
    expect(authCodeFor(null)).toBe('auth/internal-error')
    expect(authCodeFor(undefined)).toBe('auth/internal-error')
  })

  it('serviceErrorName reads only a leading upper-case name', () => {
    expect(serviceErrorName('EMAIL_EXISTS')).toBe('EMAIL_EXISTS')
    expect(serviceErrorName('WEAK_PASSWORD : x')).toBe('WEAK_PASSWORD')
    expect(serviceErrorName('Not Found')).toBeNull()
  })
})

describe('IdentityError', () => {
  it('carries the code as its only message', () => {
    const error = new IdentityError('auth/wrong-password', 400, 'INVALID_PASSWORD')
    expect(error).toBeInstanceOf(Error)
    expect(error.message).toBe('auth/wrong-password')
    expect(error.code).toBe('auth/wrong-password')
    expect(error.status).toBe(400)
    expect(error.name).toBe('IdentityError')
  })
})
