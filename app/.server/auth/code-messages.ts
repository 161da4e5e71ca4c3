import { codeOf, groupOf, type AuthCode, type CodeGroup } from '~/.server/identity'
import { captchaSettings, isCaptchaRefusal } from '~/.server/identity/recaptcha'
import type { TranslationKey } from '~/lib/i18n'
import type { CaptchaSettings } from '~/lib/recaptcha'

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

/** A refused call's code and message; when the service gave no verdict (a 5xx), the attempt's points come back. */
export async function refusalOf(error: unknown, attempt: { release(outcome: 'no-verdict'): Promise<void> }) {
  const code = codeOf(error)
  const message = messageOf(code)
  if (message.status >= 500) await attempt.release('no-verdict')
  return { code, ...message }
}

export interface Unavailable {
  unavailable: 429 | 503
}

export function unavailableStatus(code: AuthCode): 429 | 503 {
  return groupOf(code) === 'throttled' ? 429 : 503
}

export interface SignInRefusal {
  status: number
  message: MessageKey | 'error.captchaNeedsJs'
  captcha?: CaptchaSettings
}

/** What a refused password sign-in (or "Confirm it's you") answers; the limit's attempt is released here. */
export async function signInRefused(
  code: AuthCode,
  attempt: { release(outcome: 'failure' | 'no-verdict'): Promise<void> },
  posted: string | undefined,
): Promise<SignInRefusal> {
  // All credentials codes get the same answer (no enumeration).
  const credentials = groupOf(code) === 'credentials'
  await attempt.release(credentials ? 'failure' : 'no-verdict')
  if (isCaptchaRefusal(code)) {
    // Without JavaScript the visitor is told the check needs it; with it the page gets a fresh token and retries once.
    const captcha = captchaSettings('signInWithPassword') ?? undefined
    if (posted === undefined) return { status: 400, message: 'error.captchaNeedsJs', captcha }
    if (captcha) return { status: 400, message: 'error.captchaRequired', captcha }
    return { status: 503, message: 'error.unexpected' }
  }
  if (credentials) return { status: 400, message: 'error.wrongCredentials' }
  const { key, status } = messageOf(code)
  return { status, message: key }
}
