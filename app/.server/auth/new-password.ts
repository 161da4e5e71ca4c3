import { data, type AppLoadContext } from '@remix-run/node'
import { getConfig } from '~/.server/config'
import { serverPasswordProblem } from '~/.server/policy/common-passwords'
import { getIdentity, isIdentityError, messageKeyFor, type AuthCode } from '~/.server/identity'
import { securityEvent } from '~/.server/ops/security-events'
import { consumeNewPassword } from '~/.server/policy/rate-limit'
import type { Outcome } from '~/.server/policy/rate-limit-attempt'
import { redirectFromContinueUrl } from './continue-url'
import { revokeSessionsByEmail } from './session'
import { statusFor } from './sign-in'

const LINK_FAILURES: ReadonlySet<AuthCode> = new Set(['auth/invalid-action-code', 'auth/expired-action-code'])

function codeOf(error: unknown): AuthCode {
  return isIdentityError(error) ? error.code : 'auth/internal-error'
}

/** The status of the error page for a check the identity service could not make. */
export function serviceFailureStatus(code: AuthCode): 429 | 503 {
  return code === 'auth/too-many-requests' ? 429 : 503
}

/**
 * Checks the emailed code without spending it. A service failure is not an invalid link: the error
 * page, 429 when the service says too many requests (the link may still be good later), else 503.
 */
export async function inspectResetCode(oobCode: string | null) {
  const minLength = getConfig().passwordMinLength
  if (!oobCode) return { valid: false, email: null, minLength } as const
  try {
    const info = await getIdentity().checkActionCode(oobCode)
    if (info.requestType !== 'PASSWORD_RESET' || !info.email) return { valid: false, email: null, minLength } as const
    return { valid: true, email: info.email, minLength } as const
  } catch (error) {
    const code = codeOf(error)
    if (LINK_FAILURES.has(code)) return { valid: false, email: null, minLength } as const
    throw data({ reason: 'identity-unavailable' }, { status: serviceFailureStatus(code) })
  }
}

/**
 * The `redirect` to carry back to sign-in: from the link's continueUrl (which the reset request
 * built on our origin) or a `redirect` parameter. It is checked again at sign-in.
 */
export function continueParams(search: URLSearchParams): string {
  const redirect = search.get('redirect') || redirectFromContinueUrl(search.get('continueUrl'))
  return redirect ? new URLSearchParams({ redirect }).toString() : ''
}

export type ResetOutcome =
  | { status: 'done'; httpStatus: 200 }
  | { status: 'invalid-link'; httpStatus: 400 }
  | { status: 'invalid'; httpStatus: 400; passwordError: string | null; confirmationError: string | null }
  | { status: 'error'; httpStatus: number; message: string }

/** Sets the new password with the code, then ends every session the account had. */
export async function completePasswordReset(
  input: { oobCode: string | null; password: string; confirmation: string; isBot: boolean },
  context: AppLoadContext,
): Promise<ResetOutcome> {
  const limit = await consumeNewPassword({ ip: context.clientIp, reqId: context.requestId })
  if (!limit.ok) {
    return { status: 'error', httpStatus: 429, message: 'error.tooManyRequests' }
  }
  if (!input.oobCode || input.isBot) return { status: 'invalid-link', httpStatus: 400 }

  let email: string
  try {
    const info = await getIdentity().checkActionCode(input.oobCode)
    if (info.requestType !== 'PASSWORD_RESET' || !info.email) return { status: 'invalid-link', httpStatus: 400 }
    email = info.email
  } catch (error) {
    return failure(codeOf(error), limit.release)
  }

  const passwordError = input.password
    ? serverPasswordProblem(input.password, { minLength: getConfig().passwordMinLength, email })
    : 'validation.passwordRequired'
  const confirmationError = !input.confirmation
    ? 'validation.confirmRequired'
    : input.password && input.confirmation !== input.password
      ? 'newPassword.mismatch'
      : null
  if (passwordError || confirmationError) return { status: 'invalid', httpStatus: 400, passwordError, confirmationError }

  try {
    await getIdentity().resetPassword(input.oobCode, input.password)
  } catch (error) {
    const code = codeOf(error)
    if (code === 'auth/weak-password') {
      return { status: 'invalid', httpStatus: 400, passwordError: 'error.weakPassword', confirmationError: null }
    }
    return failure(code, limit.release)
  }
  await limit.release('success')
  await revokeSessionsByEmail(email)
  securityEvent('reset-done', { reqId: context.requestId, ip: context.clientIp, email })
  return { status: 'done', httpStatus: 200 }
}

/** The answer to a failed identity call; a failing service judged nothing, so the point goes back (ADR 015). */
async function failure(code: AuthCode, release: (outcome: Outcome) => Promise<void>): Promise<ResetOutcome> {
  if (LINK_FAILURES.has(code)) return { status: 'invalid-link', httpStatus: 400 }
  const message = messageKeyFor(code)
  const httpStatus = statusFor(message)
  if (httpStatus >= 500) await release('void')
  return { status: 'error', httpStatus, message }
}
