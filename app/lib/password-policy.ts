import { guessabilityProblem, type GuessReason } from './guessability'
import type { TranslationKey } from './i18n'
import { PASSWORD_MAX_LENGTH } from './limits'

/** Tiny and dependency-free: it ships to the browser. The server adds the common-password list and zxcvbn-ts. */

export type PasswordProblem =
  'newPassword.tooShort' | 'newPassword.tooLong' | 'newPassword.tooFewClasses' | 'newPassword.containsEmail'

export interface PasswordPolicyOptions {
  minLength: number
  email?: string | null
}

const MIN_LOCAL_PART = 3

export function evaluatePassword(password: string, { minLength, email }: PasswordPolicyOptions) {
  // Code points, not UTF-16 units, so '😀' counts as one. No Unicode
  // normalisation: we measure exactly what the identity service will receive.
  const length = [...password].length
  const lower = /[a-z]/.test(password)
  const upper = /[A-Z]/.test(password)
  const digit = /[0-9]/.test(password)
  // Any code point outside a-z, A-Z, 0-9 is special, accented letters included: they belong to none of the other types.
  const special = /[^a-zA-Z0-9]/u.test(password)
  const classes = [lower, upper, digit, special].filter(Boolean).length >= 3
  const local = localPart(email)
  return {
    length: length >= minLength,
    lower,
    upper,
    digit,
    special,
    classes,
    notTooLong: length <= PASSWORD_MAX_LENGTH,
    notEmail: local === null || !password.toLowerCase().includes(local),
    unguessable: guessabilityProblem(password, { email }) === null,
  }
}

export type PasswordChecklist = ReturnType<typeof evaluatePassword>

export function passwordProblem(password: string, options: PasswordPolicyOptions): PasswordProblem | null {
  const check = evaluatePassword(password, options)
  if (!check.length) return 'newPassword.tooShort'
  if (!check.notTooLong) return 'newPassword.tooLong'
  if (!check.classes) return 'newPassword.tooFewClasses'
  if (!check.notEmail) return 'newPassword.containsEmail'
  return null
}

export function ruleStateOf(password: string, options: PasswordPolicyOptions) {
  const { length, lower, upper, digit, special, classes, unguessable } = evaluatePassword(password, options)
  return { length, lower, upper, digit, special, classes, unguessable }
}

export type PasswordRuleState = ReturnType<typeof ruleStateOf>

export interface NewPasswordProblems {
  passwordError: PasswordProblem | GuessReason | 'validation.passwordRequired' | null
  confirmationError: 'validation.confirmRequired' | 'newPassword.mismatch' | null
}

export interface NewPasswordRejection {
  passwordError: TranslationKey | null
  confirmationError: NewPasswordProblems['confirmationError']
  rules: PasswordRuleState | null
}

export function newPasswordProblems(
  { password, confirmation }: { password: string; confirmation: string },
  options: PasswordPolicyOptions,
): NewPasswordProblems {
  return {
    passwordError: password
      ? (passwordProblem(password, options) ?? guessabilityProblem(password, options))
      : 'validation.passwordRequired',
    confirmationError: !confirmation
      ? 'validation.confirmRequired'
      : password && confirmation !== password
        ? 'newPassword.mismatch'
        : null,
  }
}

// "3 of 4 types" has no exact equivalent, so we ask for lower, upper and digit: any such password satisfies our rule.
export function passwordRulesAttribute(minLength: number): string {
  return `minlength: ${minLength}; maxlength: ${PASSWORD_MAX_LENGTH}; required: lower; required: upper; required: digit; allowed: special;`
}

function localPart(email: string | null | undefined): string | null {
  if (!email) return null
  const at = email.lastIndexOf('@')
  const local = (at === -1 ? email : email.slice(0, at)).trim().toLowerCase()
  return [...local].length >= MIN_LOCAL_PART ? local : null
}
