import type { AppLoadContext } from '~/.server/context'
import { getConfig } from '~/.server/config'
import { refuseNewPassword, refusedByService, type PasswordRefusal } from '~/.server/policy/common-passwords'
import {
  codeOf,
  getIdentity,
  isLinkFailure,
  outcomeOf,
  unavailableStatus,
  type AuthCode,
  type MessageKey,
  type Unavailable,
} from '~/.server/identity'
import { securityEvent } from '~/.server/ops/security-events'
import { consumeNewPassword } from '~/.server/policy/rate-limit'
import type { Outcome } from '~/.server/policy/rate-limit-attempt'
import { redirectFromContinueUrl } from './continue-url'
import { revokeSessionsByEmail } from './session'

export type ResetCodeCheck =
  | { valid: true; email: string; minLength: number }
  | { valid: false; email: null; minLength: number }
  | Unavailable

/**
 * Checks the emailed code without spending it. A service failure is not an invalid link: the error
 * page, 429 when the service says too many requests (the link may still be good later), else 503.
 */
export async function inspectResetCode(oobCode: string | null): Promise<ResetCodeCheck> {
  const minLength = getConfig().passwordMinLength
  if (!oobCode) return { valid: false, email: null, minLength }
  try {
    const info = await getIdentity().checkActionCode(oobCode)
    if (info.requestType !== 'PASSWORD_RESET' || !info.email) return { valid: false, email: null, minLength }
    return { valid: true, email: info.email, minLength }
  } catch (error) {
    const code = codeOf(error)
    if (isLinkFailure(code)) return { valid: false, email: null, minLength }
    return { unavailable: unavailableStatus(code) }
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
  | ({ status: 'invalid'; httpStatus: 400 } & PasswordRefusal)
  | { status: 'error'; httpStatus: number; message: MessageKey }

/** Sets the new password with the code, then ends every session the account had. */
export async function completePasswordReset(
  input: { oobCode: string | null; password: string; confirmation: string },
  context: AppLoadContext,
): Promise<ResetOutcome> {
  const limit = await consumeNewPassword({ ip: context.clientIp, reqId: context.requestId })
  if (!limit.ok) {
    return { status: 'error', httpStatus: 429, message: 'error.tooManyRequests' }
  }
  if (!input.oobCode) return { status: 'invalid-link', httpStatus: 400 }

  let email: string
  try {
    const info = await getIdentity().checkActionCode(input.oobCode)
    if (info.requestType !== 'PASSWORD_RESET' || !info.email) return { status: 'invalid-link', httpStatus: 400 }
    email = info.email
  } catch (error) {
    return failure(codeOf(error), limit.release)
  }

  const policy = { minLength: getConfig().passwordMinLength, email }
  const refusal = refuseNewPassword(input, policy)
  if (refusal) return { status: 'invalid', httpStatus: 400, ...refusal }

  try {
    await getIdentity().resetPassword(input.oobCode, input.password)
  } catch (error) {
    const code = codeOf(error)
    if (code === 'auth/weak-password') {
      return { status: 'invalid', httpStatus: 400, ...refusedByService(input.password, policy) }
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
  if (isLinkFailure(code)) return { status: 'invalid-link', httpStatus: 400 }
  const { key, status } = outcomeOf(code)
  if (status >= 500) await release('void')
  return { status: 'error', httpStatus: status, message: key }
}
