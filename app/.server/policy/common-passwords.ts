import type { GuessReason } from '~/lib/guessability'
import {
  newPasswordProblems,
  passwordProblem,
  ruleStateOf,
  type NewPasswordProblems,
  type PasswordPolicyOptions,
  type PasswordProblem,
  type PasswordRuleState,
} from '~/lib/password-policy'
import { serverGuessabilityProblem } from './guessability'

/**
 * Server-only: the zxcvbn-ts common-password list (about 49,000 entries) and zxcvbn-ts itself with
 * its dictionaries (./guessability.ts) stay out of the browser bundle, which makes a light check of
 * its own. The form actions judge with all of them, and their verdict decides (ADR 039, ADR 062).
 */

let common: Promise<ReadonlySet<string>> | undefined

/** Loaded on first use, as the dictionaries are (ADR 064), and kept for the life of the process. */
function commonPasswords(): Promise<ReadonlySet<string>> {
  common ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set(dictionary['passwords-common'].map((p) => p.toLowerCase())),
  )
  return common
}

/** Number of distinct entries, for the test that guards against an emptied dependency. */
export async function commonPasswordCount(): Promise<number> {
  return (await commonPasswords()).size
}

/** Case-insensitive: 'Password1234' is as guessable as 'password1234'. */
export async function isCommonPassword(password: string): Promise<boolean> {
  return (await commonPasswords()).has(password.toLowerCase())
}

export type ServerPasswordProblem = PasswordProblem | GuessReason | 'newPassword.tooCommon'

/**
 * The shared rules first (same message as the live hints); then a password that is itself on the
 * list says so; then how it could be guessed, as zxcvbn-ts judges it.
 */
export async function serverPasswordProblem(
  password: string,
  options: PasswordPolicyOptions,
): Promise<ServerPasswordProblem | null> {
  const shared = passwordProblem(password, options)
  if (shared) return shared
  if (await isCommonPassword(password)) return 'newPassword.tooCommon'
  return serverGuessabilityProblem(password, options.email)
}

/** The checklist's rules for a password, "nothing easy to guess" as the server judges it. */
export async function serverRuleState(password: string, policy: PasswordPolicyOptions): Promise<PasswordRuleState> {
  const unguessable = (await serverGuessabilityProblem(password, policy.email)) === null
  return { ...ruleStateOf(password, policy), unguessable }
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
export async function refuseNewPassword(
  input: { password: string; confirmation: string },
  policy: PasswordPolicyOptions,
): Promise<PasswordRefusal | null> {
  const { confirmationError } = newPasswordProblems(input, policy)
  const passwordError = input.password
    ? await serverPasswordProblem(input.password, policy)
    : 'validation.passwordRequired'
  if (!passwordError && !confirmationError) return null
  const rules = input.password ? await serverRuleState(input.password, policy) : null
  return { passwordError, confirmationError, rules }
}

/** The service's own refusal (`auth/weak-password`), with what the checklist can say of the password. */
export async function refusedByService(password: string, policy: PasswordPolicyOptions): Promise<PasswordRefusal> {
  return {
    passwordError: 'error.weakPassword',
    confirmationError: null,
    rules: await serverRuleState(password, policy),
  }
}
