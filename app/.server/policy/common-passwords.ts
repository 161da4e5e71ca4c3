import { dictionary } from '@zxcvbn-ts/language-common'
import type { GuessReason } from '~/lib/guessability'
import {
  newPasswordProblem,
  newPasswordProblems,
  ruleStateOf,
  type NewPasswordProblems,
  type PasswordPolicyOptions,
  type PasswordProblem,
  type PasswordRuleState,
} from '~/lib/password-policy'

/**
 * Server-only: the zxcvbn-ts common-password list (about 49,000 entries, ~400 kB) and its
 * diceware words stay out of the browser bundle, which knows the first hundred words only. The
 * form action judges with all of them (ADR 039).
 */

let common: ReadonlySet<string> | undefined
let ranked: ReadonlyMap<string, number> | undefined

/** Built on first use and kept for the life of the process. */
function commonPasswords(): ReadonlySet<string> {
  common ??= new Set(dictionary.passwords.map((p) => p.toLowerCase()))
  return common
}

/**
 * Every word the guessability check leans on, with its rank: a password's place in the list, a
 * diceware word the size of its list (any of the 7,776 is as likely as another).
 */
export function commonWords(): ReadonlyMap<string, number> {
  if (ranked) return ranked
  const words = new Map<string, number>()
  dictionary.passwords.forEach((word, index) => {
    if (!words.has(word.toLowerCase())) words.set(word.toLowerCase(), index + 1)
  })
  for (const word of dictionary.diceware) {
    if ((words.get(word) ?? Infinity) > dictionary.diceware.length) words.set(word, dictionary.diceware.length)
  }
  ranked = words
  return ranked
}

/** Number of distinct entries, for the test that guards against an emptied dependency. */
export function commonPasswordCount(): number {
  return commonPasswords().size
}

/** Case-insensitive: 'Password1234' is as guessable as 'password1234'. */
export function isCommonPassword(password: string): boolean {
  return commonPasswords().has(password.toLowerCase())
}

export type ServerPasswordProblem = PasswordProblem | GuessReason | 'newPassword.tooCommon'

/**
 * The shared rules first (same message as the live hints), with every common word; a password
 * that is itself on the list says so rather than how it could be guessed.
 */
export function serverPasswordProblem(password: string, options: PasswordPolicyOptions): ServerPasswordProblem | null {
  const problem = newPasswordProblem(password, { ...options, words: commonWords() })
  const shared = problem !== null && !problem.startsWith('newPassword.guessable')
  return shared ? problem : isCommonPassword(password) ? 'newPassword.tooCommon' : problem
}

/** Why the server refuses a new password (the service's own `weak-password` included), as the form shows it. */
export interface PasswordRefusal {
  passwordError: ServerPasswordProblem | 'validation.passwordRequired' | 'error.weakPassword' | null
  confirmationError: NewPasswordProblems['confirmationError']
  rules: PasswordRuleState | null
}

/**
 * The check of both new-password forms: the page's own (newPasswordProblems) with what only the
 * server has; null when the password can go to the identity service.
 */
export function refuseNewPassword(
  input: { password: string; confirmation: string },
  policy: PasswordPolicyOptions,
): PasswordRefusal | null {
  const { confirmationError } = newPasswordProblems(input, policy)
  const passwordError = input.password ? serverPasswordProblem(input.password, policy) : 'validation.passwordRequired'
  if (!passwordError && !confirmationError) return null
  const rules = input.password ? ruleStateOf(input.password, { ...policy, words: commonWords() }) : null
  return { passwordError, confirmationError, rules }
}

/** The service's own refusal (`auth/weak-password`), with what the checklist can say of the password. */
export function refusedByService(password: string, policy: PasswordPolicyOptions): PasswordRefusal {
  return { passwordError: 'error.weakPassword', confirmationError: null, rules: ruleStateOf(password, { ...policy, words: commonWords() }) }
}
