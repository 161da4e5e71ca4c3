import type { AppLoadContext } from '~/.server/context'
import { groupOf, type AuthCode } from '~/.server/identity'
import { messageOf, type MessageKey } from './code-messages'
import { recordSignIn } from '~/.server/ops/metrics'
import { securityEvent } from '~/.server/ops/security-events'
import { rotateCsrf } from '~/.server/policy/csrf'
import { deviceCookie } from '~/.server/policy/rate-limit'
import { captchaSettings, isCaptchaRefusal, refreshAfterDemand } from '~/.server/policy/recaptcha'
import { defaultRedirect, type CheckedRedirect } from '~/.server/policy/redirect'
import type { CaptchaSettings } from '~/lib/recaptcha'
import { startSession } from './session'

/** Sits at the bottom of auth/ so that every flow can end here without importing another flow. */

export type SignInMethod = 'password' | 'email-link' | 'sso' | 'passkey'

export async function handleNewSession(
  idToken: string,
  input: {
    email: string | null
    method: SignInMethod
    redirect: CheckedRedirect | null
    remember: boolean
    secondFactor?: 'phone' | 'totp'
  },
  context: AppLoadContext,
): Promise<{ setCookies: string[]; location: string }> {
  const session = await startSession(
    idToken,
    { method: input.method, secondFactor: input.secondFactor ?? null, remember: input.remember },
    context,
  )
  // A CSRF token seen before sign-in (shared computer, or planted) must not survive it.
  const setCookies = [session, rotateCsrf()]
  if (input.email) setCookies.push(deviceCookie(input.email))
  securityEvent('sign-in-success', {
    reqId: context.requestId,
    ip: context.clientIp,
    email: input.email ?? undefined,
    method: input.method,
    secondFactor: input.secondFactor,
  })
  recordSignIn('success')
  return { setCookies, location: input.redirect?.url ?? defaultRedirect() }
}

export interface SignInRefusal {
  status: number
  message: MessageKey | 'error.captchaNeedsJs'
  captcha?: CaptchaSettings
}

export async function signInRefused(
  code: AuthCode,
  attempt: { release(outcome: 'failure' | 'no-verdict'): Promise<void> },
  posted: string | undefined,
): Promise<SignInRefusal> {
  // All credentials codes get the same answer (no enumeration).
  const credentials = groupOf(code) === 'credentials'
  await attempt.release(credentials ? 'failure' : 'no-verdict')
  if (isCaptchaRefusal(code)) {
    // Without JavaScript the visitor is told the check needs it; with it the page gets a fresh token and retries once.
    await refreshAfterDemand('signInWithPassword')
    const captcha = captchaSettings('signInWithPassword') ?? undefined
    if (posted === undefined) return { status: 400, message: 'error.captchaNeedsJs', captcha }
    if (captcha) return { status: 400, message: 'error.captchaRequired', captcha }
    return { status: 503, message: 'error.unexpected' }
  }
  if (credentials) return { status: 400, message: 'error.wrongCredentials' }
  const { key, status } = messageOf(code)
  return { status, message: key }
}
