import { guessabilityProblem, type GuessReason } from './guessability'
import type { TranslationKey } from './i18n'
import { PASSWORD_MAX_LENGTH } from './limits'

/**
 * The new-password rules, shared by the server check and the live
 * checklist in the browser. Keep it tiny and dependency-free: it ships to the browser.
 * The server adds the whole common-password list and zxcvbn-ts (app/.server/policy/common-passwords.ts):
 * the browser judges guessability with a light check of its own (ADR 039, ADR 062).
 */

/** Translation keys, in the order they are reported. */
export type PasswordProblem =
  'newPassword.tooShort' | 'newPassword.tooLong' | 'newPassword.tooFewClasses' | 'newPassword.containsEmail'

export interface PasswordPolicyOptions {
  /** config.passwordMinLength, passed in so this module never reads server config. */
  minLength: number
  /** The account's email: the password must not contain its local part, nor be guessed from it. */
  email?: string | null
}

export interface PasswordChecklist {
  length: boolean
  lower: boolean
  upper: boolean
  digit: boolean
  special: boolean
  /** At least 3 of the 4 character types. */
  classes: boolean
  notTooLong: boolean
  notEmail: boolean
  /** Takes enough guesses (guessability.ts): no common word, piece of the address or pattern to lean on. */
  unguessable: boolean
}

/** Local parts shorter than this are too likely to occur by chance ("al", "jo"). */
const MIN_LOCAL_PART = 3

export function evaluatePassword(password: string, { minLength, email }: PasswordPolicyOptions): PasswordChecklist {
  // Code points, not UTF-16 units, so '😀' counts as one character as a person would count it.
  // No Unicode normalisation: we measure exactly what the identity service will receive.
  const length = [...password].length
  const lower = /[a-z]/.test(password)
  const upper = /[A-Z]/.test(password)
  const digit = /[0-9]/.test(password)
  // "Special" is any code point outside a-z, A-Z, 0-9: punctuation, spaces, emoji, and also
  // non-ASCII letters such as 'é' or 'ß'. The spec lists the types as a-z / A-Z / 0-9, so an
  // accented letter belongs to none of them; counting it as special rewards the larger alphabet.
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

/** The first broken rule of length, character types and address, as a translation key, or null. */
export function passwordProblem(password: string, options: PasswordPolicyOptions): PasswordProblem | null {
  const check = evaluatePassword(password, options)
  if (!check.length) return 'newPassword.tooShort'
  if (!check.notTooLong) return 'newPassword.tooLong'
  if (!check.classes) return 'newPassword.tooFewClasses'
  if (!check.notEmail) return 'newPassword.containsEmail'
  return null
}

/** What is wrong with a new password: the rules above, then how easily it is guessed. */
export function newPasswordProblem(password: string, options: PasswordPolicyOptions): PasswordProblem | GuessReason | null {
  return passwordProblem(password, options) ?? guessabilityProblem(password, options)
}

/** The checklist's rules as the page shows them: what a rejected password met, never the password. */
export type PasswordRuleState = Pick<
  PasswordChecklist,
  'length' | 'lower' | 'upper' | 'digit' | 'special' | 'classes' | 'unguessable'
>

export function ruleStateOf(password: string, options: PasswordPolicyOptions): PasswordRuleState {
  const { length, lower, upper, digit, special, classes, unguessable } = evaluatePassword(password, options)
  return { length, lower, upper, digit, special, classes, unguessable }
}

export interface NewPasswordProblems {
  passwordError: PasswordProblem | GuessReason | 'validation.passwordRequired' | null
  confirmationError: 'validation.confirmRequired' | 'newPassword.mismatch' | null
}

/** The server's refusal of a new password, as the form shows it (both pages' actions answer with it). */
export interface NewPasswordRejection {
  passwordError: TranslationKey | null
  confirmationError: NewPasswordProblems['confirmationError']
  /** Which rules of the checklist the refused password met (null when none was given): shown without JavaScript. */
  rules: PasswordRuleState | null
}

/**
 * What is wrong with a new password and its confirmation, as far as the shared rules can tell: the
 * page says it before sending (JavaScript on), the server says the same after (with the whole
 * common-password list). Each field gets its own first problem.
 */
export function newPasswordProblems(
  { password, confirmation }: { password: string; confirmation: string },
  options: PasswordPolicyOptions,
): NewPasswordProblems {
  return {
    passwordError: password ? newPasswordProblem(password, options) : 'validation.passwordRequired',
    confirmationError: !confirmation
      ? 'validation.confirmRequired'
      : password && confirmation !== password
        ? 'newPassword.mismatch'
        : null,
  }
}

/**
 * The HTML `passwordrules` attribute (Apple's password-manager syntax) so generated passwords
 * pass on the first try. "3 of 4 types" has no exact equivalent, so we ask for lower, upper
 * and digit: any password meeting that satisfies our rule, and special stays allowed.
 */
export function passwordRulesAttribute(minLength: number): string {
  return `minlength: ${minLength}; maxlength: ${PASSWORD_MAX_LENGTH}; required: lower; required: upper; required: digit; allowed: special;`
}

/** Lower-cased local part (before the last '@'; the whole value when there is none), or null if too short. */
function localPart(email: string | null | undefined): string | null {
  if (!email) return null
  const at = email.lastIndexOf('@')
  const local = (at === -1 ? email : email.slice(0, at)).trim().toLowerCase()
  return [...local].length >= MIN_LOCAL_PART ? local : null
}
