import { describe, expect, it } from 'vitest'
import { SERVICE_ERRORS } from '~/.server/identity/errors'
import type { AuthCode } from '~/.server/identity'
import { MESSAGE_KEYS, messageKeyFor, type MessageKey } from './code-messages'

// Written out again on purpose: a change to the table must be a change to this test too.
const expectedKeys: Array<[AuthCode, MessageKey]> = [
  ['auth/wrong-password', 'error.wrongCredentials'],
  ['auth/user-not-found', 'error.wrongCredentials'],
  ['auth/invalid-credential', 'error.wrongCredentials'],
  ['auth/user-disabled', 'error.wrongCredentials'],
  ['auth/missing-password', 'error.wrongCredentials'],
  ['auth/too-many-requests', 'error.tooManyRequests'],
  ['auth/network-request-failed', 'error.unexpected'],
  ['auth/internal-error', 'error.unexpected'],
  ['auth/invalid-api-key', 'error.unexpected'],
  ['auth/argument-error', 'error.unexpected'],
  ['auth/multi-factor-auth-required', 'error.unexpected'],
  ['auth/expired-action-code', 'error.invalidLink'],
  ['auth/invalid-action-code', 'error.invalidLink'],
  ['auth/weak-password', 'error.weakPassword'],
  ['auth/invalid-email', 'error.invalidEmail'],
  ['auth/missing-recaptcha-token', 'error.captchaRequired'],
  ['auth/invalid-recaptcha-token', 'error.captchaRequired'],
  ['auth/invalid-recaptcha-action', 'error.captchaRequired'],
  ['auth/recaptcha-not-enabled', 'error.unexpected'],
  ['auth/missing-recaptcha-version', 'error.unexpected'],
  ['auth/invalid-recaptcha-version', 'error.unexpected'],
  ['auth/missing-client-type', 'error.unexpected'],
  ['auth/invalid-req-type', 'error.unexpected'],
  ['auth/user-token-expired', 'error.sessionExpired'],
  ['auth/invalid-user-token', 'error.sessionExpired'],
  ['auth/requires-recent-login', 'error.sessionExpired'],
  ['auth/user-mismatch', 'error.sessionExpired'],
  ['auth/email-already-in-use', 'error.emailInUse'],
  ['auth/unauthorized-continue-uri', 'error.unauthorizedDomain'],
  ['auth/unauthorized-domain', 'error.unauthorizedDomain'],
  ['auth/operation-not-allowed', 'error.notAllowed'],
  ['auth/admin-restricted-operation', 'error.notAllowed'],
  ['auth/account-exists-with-different-credential', 'error.accountExists'],
  ['auth/credential-already-in-use', 'error.accountExists'],
  ['auth/invalid-verification-code', 'mfa.wrongCode'],
  ['auth/missing-verification-code', 'mfa.codeRequired'],
  ['auth/code-expired', 'mfa.expired'],
  ['auth/invalid-verification-id', 'mfa.sessionInvalid'],
  ['auth/missing-verification-id', 'mfa.sessionInvalid'],
  ['auth/invalid-multi-factor-session', 'mfa.sessionInvalid'],
  ['auth/missing-multi-factor-session', 'mfa.sessionInvalid'],
  ['auth/multi-factor-info-not-found', 'mfa.sessionInvalid'],
  ['auth/missing-multi-factor-info', 'mfa.sessionInvalid'],
  ['auth/invalid-phone-number', 'phoneEnrolment.badNumber'],
  ['auth/second-factor-already-in-use', 'phoneEnrolment.exists'],
  ['auth/unverified-email', 'phoneEnrolment.needsVerified'],
]

const ALLOWED_KEYS = [
  'error.wrongCredentials',
  'error.tooManyRequests',
  'error.unexpected',
  'error.invalidLink',
  'error.weakPassword',
  'error.invalidEmail',
  'error.captchaRequired',
  'error.sessionExpired',
  'error.emailInUse',
  'error.unauthorizedDomain',
  'error.notAllowed',
  'error.accountExists',
  'mfa.wrongCode',
  'mfa.codeRequired',
  'mfa.expired',
  'mfa.sessionInvalid',
  'phoneEnrolment.badNumber',
  'phoneEnrolment.exists',
  'phoneEnrolment.needsVerified',
]

describe('auth codes → translation keys', () => {
  it.each(expectedKeys)('%s → %s', (code, key) => {
    expect(messageKeyFor(code)).toBe(key)
  })

  it('the table has exactly the rows tested above', () => {
    expect(Object.entries(MESSAGE_KEYS).sort()).toEqual([...expectedKeys].sort())
  })

  it('every code a service message maps to has a key, and every key is an allowed one', () => {
    for (const code of Object.values(SERVICE_ERRORS)) expect(Object.hasOwn(MESSAGE_KEYS, code)).toBe(true)
    for (const key of Object.values(MESSAGE_KEYS)) expect(ALLOWED_KEYS).toContain(key)
  })

  it.each(['auth/popup-blocked', 'auth/something-new', 'constructor', ''])('unknown %j → error.unexpected', (code) => {
    expect(messageKeyFor(code)).toBe('error.unexpected')
  })
})
