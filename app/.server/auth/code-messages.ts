import { groupOf, type AuthCode, type CodeGroup } from '~/.server/identity'
import type { TranslationKey } from '~/lib/i18n'

interface Row {
  key: TranslationKey
  status: 400 | 429 | 503
}

// 400, not 401: a 401 would need a WWW-Authenticate challenge (see ADR 028).
const unexpected = { key: 'error.unexpected', status: 503 } as const

const BY_GROUP = {
  credentials: { key: 'error.wrongCredentials', status: 400 },
  throttled: { key: 'error.tooManyRequests', status: 429 },
  unavailable: unexpected,
  misconfigured: unexpected,
  link: { key: 'error.invalidLink', status: 400 },
  captcha: { key: 'error.captchaRequired', status: 400 },
  input: null,
  session: { key: 'error.sessionExpired', status: 400 },
  'account-exists': { key: 'error.accountExists', status: 400 },
  'not-allowed': { key: 'error.notAllowed', status: 400 },
  'second-factor': { key: 'mfa.sessionInvalid', status: 400 },
} as const satisfies Record<CodeGroup, Row | null>

const OWN = {
  // Sign-in answers it as a credentials error (no enumeration); the other flows name it.
  'auth/invalid-email': { key: 'error.invalidEmail', status: 400 },
  'auth/email-already-in-use': { key: 'error.emailInUse', status: 400 },
  'auth/unauthorized-continue-uri': { key: 'error.unauthorizedDomain', status: 400 },
  'auth/unauthorized-domain': { key: 'error.unauthorizedDomain', status: 400 },
  'auth/multi-factor-auth-required': unexpected,
  'auth/invalid-verification-code': { key: 'mfa.wrongCode', status: 400 },
  'auth/missing-verification-code': { key: 'mfa.codeRequired', status: 400 },
  'auth/code-expired': { key: 'mfa.expired', status: 400 },
  'auth/invalid-phone-number': { key: 'phoneEnrolment.badNumber', status: 400 },
  'auth/second-factor-already-in-use': { key: 'phoneEnrolment.exists', status: 400 },
  'auth/unverified-email': { key: 'phoneEnrolment.needsVerified', status: 400 },
  'auth/weak-password': { key: 'error.weakPassword', status: 400 },
} as const satisfies Partial<Record<AuthCode, Row>>

export type Message = NonNullable<(typeof BY_GROUP)[CodeGroup]> | (typeof OWN)[keyof typeof OWN]

export type MessageKey = Message['key']

export function messageOf(code: AuthCode): Message {
  const group = groupOf(code)
  const message = Object.hasOwn(OWN, code) ? OWN[code as keyof typeof OWN] : group && BY_GROUP[group]
  // Only the input group has no group message, and each of its codes has its own (the unit test checks them all).
  if (!message) throw new Error(`${code} has no message`)
  return message
}

export interface Unavailable {
  unavailable: 429 | 503
}

export function unavailableStatus(code: AuthCode): 429 | 503 {
  return groupOf(code) === 'throttled' ? 429 : 503
}
