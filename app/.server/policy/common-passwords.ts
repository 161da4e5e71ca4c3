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

// Server-only: the common-password list (~49,000 entries) and zxcvbn-ts stay
// out of the browser bundle, and the server's verdict decides (see ADR 062).

let common: Promise<ReadonlySet<string>> | undefined

function commonPasswords(): Promise<ReadonlySet<string>> {
  common ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set(dictionary['passwords-common'].map((p) => p.toLowerCase())),
  )
  return common
}

export async function commonPasswordCount(): Promise<number> {
  return (await commonPasswords()).size
}

/** Case-insensitive: 'Password1234' is as guessable as 'password1234'. */
export async function isCommonPassword(password: string): Promise<boolean> {
  return (await commonPasswords()).has(password.toLowerCase())
}

export type ServerPasswordProblem = PasswordProblem | GuessReason | 'newPassword.tooCommon'

export async function serverPasswordProblem(
  password: string,
  options: PasswordPolicyOptions,
): Promise<ServerPasswordProblem | null> {
  const shared = passwordProblem(password, options)
  if (shared) return shared
  if (await isCommonPassword(password)) return 'newPassword.tooCommon'
  return serverGuessabilityProblem(password, options.email)
}

export async function serverRuleState(password: string, policy: PasswordPolicyOptions): Promise<PasswordRuleState> {
  const unguessable = (await serverGuessabilityProblem(password, policy.email)) === null
  return { ...ruleStateOf(password, policy), unguessable }
}

export interface PasswordRefusal {
  passwordError: ServerPasswordProblem | 'validation.passwordRequired' | 'error.weakPassword' | null
  confirmationError: NewPasswordProblems['confirmationError']
  rules: PasswordRuleState | null
}

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

export async function refusedByService(password: string, policy: PasswordPolicyOptions): Promise<PasswordRefusal> {
  return {
    passwordError: 'error.weakPassword',
    confirmationError: null,
    rules: await serverRuleState(password, policy),
  }
}
