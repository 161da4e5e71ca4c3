import type { AppLoadContext } from '~/.server/context'
import { codeOf, getIdentity, groupOf, type AuthCode } from '~/.server/identity'
import { messageOf, type MessageKey } from '../code-messages'
import { securityEvent } from '~/.server/ops/logger'
import { getRateLimits } from '~/.server/policy/rate-limit'
import { checkedRedirect } from '~/.server/policy/redirect'
import { page, redirectTo, type Result } from '~/.server/result'
import { retryAtAfter } from '~/lib/limits'
import { signInLink } from '~/lib/sign-in-link'
import { afterConfirmation, confirmPageWith } from '../recent-login'
import { handleNewSession, whoOf } from '../session'
import {
  SECOND_FACTOR_PATH,
  accountOf,
  chosenFactor,
  factorKind,
  pendingCookie,
  recordOutcome,
  type Pending,
} from './pending'
import type { MfaError } from '../sign-in-page'

export type StepMessage = MessageKey | 'mfa.codeFormat' | 'mfa.sendFailed' | 'error.tooManyRequestsAt'

export interface StepPage {
  message: StepMessage
  retryAt?: number
}

const step = (message: StepMessage, status: number, retryAfter?: number) =>
  page<StepPage>(retryAfter ? { message, retryAt: retryAtAfter(retryAfter) } : { message }, { status, retryAfter })

export function normaliseCode(value: string): string | null {
  const code = value.replace(/[\s-]/g, '')
  return /^\d{6}$/.test(code) ? code : null
}

// A wrong code keeps the step; an expired session or disabled account
// ends it; anything else is the service failing (see ADR 022).
const VERDICTS: Partial<Record<MessageKey, 'wrong-code' | MfaError>> = {
  'mfa.wrongCode': 'wrong-code',
  'mfa.codeRequired': 'wrong-code',
  'mfa.expired': 'expired',
  'mfa.sessionInvalid': 'invalid',
}

export async function verify(
  request: Request,
  p: Pending,
  typed: string,
  context: AppLoadContext,
): Promise<Result<StepPage>> {
  const factor = chosenFactor(p)
  if (!factor) return redirectTo(SECOND_FACTOR_PATH)
  const code = normaliseCode(typed)
  if (!code) return step('mfa.codeFormat', 400)
  if (factor.kind === 'phone' && !p.session) return step('mfa.sendFailed', 400)

  // Counted before the call, atomically, as sign-in attempts are.
  const who = { ...whoOf(context, p.email), pending: p.id, account: accountOf(p) }
  const limit = await getRateLimits().consumeMfaCode(who)
  if (!limit.ok) {
    recordOutcome(p, 'limited')
    return step('error.tooManyRequestsAt', 429, limit.retryAfterSeconds)
  }
  let errorCode: AuthCode
  try {
    const tokens = await getIdentity().finalizeMfaSignIn(
      p.credential,
      factor.kind === 'phone'
        ? { kind: 'phone', sessionInfo: p.session!, code }
        : { kind: 'totp', enrollmentId: factor.id, code },
    )
    await limit.release('success')
    if (p.confirm) {
      const user = { uid: p.confirm.uid, email: p.email }
      const done = await afterConfirmation(request, user, tokens.idToken, p.confirm, context)
      if (!done) {
        recordOutcome(p, 'expired')
        return end(p, 'expired', 'auth/user-mismatch', context)
      }
      recordOutcome(p, 'success')
      securityEvent('recent-login', { ...whoOf(context, p.email), secondFactor: factorKind(p) })
      return redirectTo(done.location, { cookies: [...done.setCookies, pendingCookie.clear()] })
    }
    try {
      // It comes back from the cookie, so it is checked again here.
      const redirect = await checkedRedirect(p.redirect, context.publicOrigin)
      const session = await handleNewSession(
        tokens.idToken,
        { email: p.email, method: p.method, redirect, remember: p.remember, secondFactor: factor.kind },
        context,
      )
      recordOutcome(p, 'success')
      return redirectTo(session.location, { cookies: [...session.setCookies, pendingCookie.clear()] })
    } catch {
      recordOutcome(p, 'expired')
      return end(p, 'expired', 'session-refused', context)
    }
  } catch (error) {
    errorCode = codeOf(error)
  }

  const verdict = errorCode === 'auth/user-disabled' ? 'invalid' : (VERDICTS[messageOf(errorCode).key] ?? null)
  if (verdict === 'wrong-code') {
    await limit.release('failure')
    recordOutcome(p, 'wrong-code')
    failure(p, errorCode, context)
    return step('mfa.wrongCode', 400)
  }
  if (verdict) {
    await limit.release('failure')
    recordOutcome(p, verdict === 'expired' ? 'expired' : 'invalid')
    return end(p, verdict, errorCode, context)
  }
  // The service never judged the code: the point comes back.
  await limit.release('no-verdict')
  recordOutcome(p, 'error')
  return groupOf(errorCode) === 'throttled' ? step('error.tooManyRequests', 429) : step('error.unexpected', 503)
}

function failure(p: Pending, code: string, context: AppLoadContext) {
  const fields = { method: p.method, secondFactor: factorKind(p), code }
  securityEvent('second-factor-failure', { ...whoOf(context, p.email), ...fields })
}

function end(p: Pending, reason: MfaError, code: string, context: AppLoadContext): Result<StepPage> {
  failure(p, code, context)
  // Signing in again starts from the address already given: the form shows it (never the password).
  const location = p.confirm
    ? confirmPageWith(p.confirm, { mfaError: reason })
    : signInLink(p.redirect, { mfaError: reason, ...(p.email ? { email: p.email } : {}) })
  return redirectTo(location, { cookies: [pendingCookie.clear()] })
}
