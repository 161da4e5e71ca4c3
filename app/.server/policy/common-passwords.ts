import { dictionary } from '@zxcvbn-ts/language-common'
import {
  newPasswordProblems,
  passwordProblem,
  ruleStateOf,
  type NewPasswordProblems,
  type PasswordPolicyOptions,
  type PasswordProblem,
  type PasswordRuleState,
} from '~/lib/password-policy'

/**
 * Server-only: the zxcvbn-ts common-password list (about 49,000 entries, ~400 kB) stays out of
 * the browser bundle. The hints in the page cannot warn about it; the form action does.
 */

let common: ReadonlySet<string> | undefined

/** Built on first use and kept for the life of the process. */
function commonPasswords(): ReadonlySet<string> {
  common ??= new Set(dictionary.passwords.map((p) => p.toLowerCase()))
  return common
}

/** Number of distinct entries, for the test that guards against an emptied dependency. */
export function commonPasswordCount(): number {
  return commonPasswords().size
}

/** Case-insensitive: 'Password1234' is as guessable as 'password1234'. */
export function isCommonPassword(password: string): boolean {
  return commonPasswords().has(password.toLowerCase())
}

export type ServerPasswordProblem = PasswordProblem | 'newPassword.tooCommon'

/** The shared rules first (same message as the live hints), then the common list. */
export function serverPasswordProblem(password: string, options: PasswordPolicyOptions): ServerPasswordProblem | null {
  return passwordProblem(password, options) ?? (isCommonPassword(password) ? 'newPassword.tooCommon' : null)
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
  return { passwordError, confirmationError, rules: input.password ? ruleStateOf(input.password, policy) : null }
}

/** The service's own refusal (`auth/weak-password`), with what the checklist can say of the password. */
export function refusedByService(password: string, policy: PasswordPolicyOptions): PasswordRefusal {
  return { passwordError: 'error.weakPassword', confirmationError: null, rules: ruleStateOf(password, policy) }
}
