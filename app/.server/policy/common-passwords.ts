import { dictionary } from '@zxcvbn-ts/language-common'
import { type PasswordPolicyOptions, type PasswordProblem, passwordProblem } from '~/lib/password-policy'

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
