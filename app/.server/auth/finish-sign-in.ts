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

/**
 * How every sign-in attempt ends, whichever way it came in (password, email link, single sign-on,
 * the second-factor step, "Confirm it's you"): a session, or a refusal. It sits at the bottom of
 * auth/ so that every flow can end here without importing another flow.
 */

export type SignInMethod = 'password' | 'email-link' | 'sso' | 'passkey'

/**
 * The end of every sign-in (password, email link, single sign-on): the session from a fresh ID token
 * (its cookie, and token sync), the device cookie naming the account (none without an email), the
 * security event, and where to go: the redirect checked where it came in, else DEFAULT_REDIRECT_URL.
 * The caller appends every one of `setCookies` to its response. Throws when the session cannot be
 * made; the caller answers with its own message.
 */
export async function signInWithIdToken(
  idToken: string,
  input: {
    email: string | null
    method: SignInMethod
    redirect: CheckedRedirect | null
    /** "Keep me signed in", as chosen on the sign-in form (ADR 037). */
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
  // A CSRF token seen before the sign-in (a shared computer, or planted) is worth nothing after it.
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

/** Why a sign-in (or a confirmation) was refused, and with what status. */
export interface SignInRefusal {
  status: number
  message: MessageKey | 'error.captchaNeedsJs'
  /** The service refused for want of a good captcha token: a page with JavaScript gets a fresh one and retries once. */
  captcha?: CaptchaSettings
}

/**
 * A password the service did not accept, at sign-in or when confirming it is you: its points and
 * its answer. A wrong password keeps its points; a captcha demand or a failing service judged
 * nothing. `posted` is the captcha field as the form posted it (see signInWithPassword in ./sign-in.ts).
 */
export async function signInRefused(
  code: AuthCode,
  attempt: { release(outcome: 'failure' | 'no-verdict'): Promise<void> },
  posted: string | undefined,
): Promise<SignInRefusal> {
  // Codes that say "these credentials do not open an account" are all answered alike (no enumeration).
  const credentials = groupOf(code) === 'credentials'
  await attempt.release(credentials ? 'failure' : 'no-verdict')
  if (isCaptchaRefusal(code)) {
    // Refused for the captcha, never for the credentials. Without JavaScript (nothing posted) the
    // visitor is told the check needs it; with it the page gets a fresh token and retries once.
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
