import type { AppLoadContext } from '~/.server/context'
import type { CaptchaSettings } from '~/lib/recaptcha'
import { rotateCsrf } from '~/.server/policy/csrf'
import { deviceCookie, deviceIdFor } from '~/.server/policy/device'
import {
  codeOf,
  getIdentity,
  groupOf,
  mfaRequiredOf,
  outcomeOf,
  type AuthCode,
  type MessageKey,
} from '~/.server/identity'
import { recordSignIn } from '~/.server/ops/metrics'
import { securityEvent } from '~/.server/ops/security-events'
import { consumeSignIn } from '~/.server/policy/rate-limit'
import {
  captchaSettings,
  captchaTokenToSend,
  isCaptchaRefusal,
  recordCaptchaOutcome,
  refreshAfterDemand,
} from '~/.server/policy/recaptcha'
import { defaultRedirect, redirectTarget } from '~/.server/policy/redirect'
import { beginSecondFactor } from './second-factor'
import { createSession } from './session'
import { syncToken } from './token-sync'

export type SignInOutcome =
  | { ok: true; setCookies: string[]; location: string }
  | {
      ok: false
      status: number
      message: MessageKey | 'error.captchaNeedsJs'
      retryAfterSeconds?: number
      /** The service refused for want of a good captcha token: a page with JavaScript gets a fresh one and retries once. */
      captcha?: CaptchaSettings
    }

export type SignInMethod = 'password' | 'email-link' | 'sso'

/**
 * The end of every sign-in (password, email link, single sign-on): the session cookie from a fresh
 * ID token and the device cookie naming the account (app/.server/policy/device.ts; none without an email),
 * token sync, the security event, and where to go (the redirect policy, checked again). The caller
 * appends every one of `setCookies` to its response. Throws when the session cannot be made; the
 * caller answers with its own message.
 */
export async function signInWithIdToken(
  idToken: string,
  input: {
    email: string | null
    method: SignInMethod
    redirect: string | null
    /** "Keep me signed in", as chosen on the sign-in form (ADR 037). */
    remember: boolean
    secondFactor?: 'phone' | 'totp'
  },
  context: AppLoadContext,
): Promise<{ setCookies: string[]; location: string }> {
  const session = await createSession(idToken, { secondFactor: input.secondFactor !== undefined, remember: input.remember })
  // A CSRF token seen before the sign-in (a shared computer, or planted) is worth nothing after it.
  const setCookies = [session, rotateCsrf()]
  if (input.email) setCookies.push(deviceCookie(input.email))
  await syncToken(idToken)
  securityEvent('sign-in-success', {
    reqId: context.requestId,
    ip: context.clientIp,
    email: input.email ?? undefined,
    method: input.method,
    secondFactor: input.secondFactor,
  })
  recordSignIn('success')
  return { setCookies, location: (await redirectTarget(input.redirect, context.publicOrigin)) ?? defaultRedirect() }
}

/**
 * The end of a first factor the service accepted (password, email link): the session when it is
 * enough, the second-factor step when the account has one (ADR 022); the attempt gets its points
 * back either way. Any other failure comes back as `{ error }`, for the flow's own answer.
 */
export async function afterFirstFactor(
  request: Request,
  attempt: { release(outcome: 'success' | 'void'): Promise<void> },
  first: { method: 'password' | 'email-link'; email: string; redirect: string | null; remember: boolean },
  answer: () => Promise<{ idToken: string; email?: string }>,
  context: AppLoadContext,
): Promise<{ ok: true; setCookies: string[]; location: string } | { ok: false; error: unknown }> {
  try {
    const { idToken, email } = await answer()
    const session = await signInWithIdToken(idToken, { ...first, email: email || first.email }, context)
    await attempt.release('success')
    return { ok: true, ...session }
  } catch (error) {
    const mfa = mfaRequiredOf(error)
    if (!mfa) return { ok: false, error }
    await attempt.release('void')
    return {
      ok: true,
      ...(await beginSecondFactor(request, { mfa, ...first, email: mfa.email ?? first.email }, context)),
    }
  }
}

/**
 * Password sign-in: the attempt takes its rate-limit points first (a browser holding this
 * account's device cookie is limited per device instead of per account), then the identity call
 * and signInWithIdToken. Only a verdict on the credentials keeps the points (ADR 015).
 *
 * `captchaResponse` is what the form posted (app/.server/policy/recaptcha.ts, ADR 020): undefined when no
 * script ran (JavaScript off), '' when the page's script got no token, else a reCAPTCHA Enterprise
 * token for the action signInWithPassword, passed on while the project has reCAPTCHA on.
 */
export async function signInWithPassword(
  request: Request,
  input: { email: string; password: string; remember: boolean; captchaResponse?: string; redirect?: string | null },
  context: AppLoadContext,
): Promise<SignInOutcome> {
  const device = deviceIdFor(request, input.email)
  const limit = await consumeSignIn({ ip: context.clientIp, email: input.email, device, reqId: context.requestId })
  if (!limit.ok) {
    recordSignIn('auth/too-many-requests')
    return { ok: false, status: 429, message: 'error.tooManyRequests', retryAfterSeconds: limit.retryAfterSeconds }
  }

  const captchaResponse = captchaTokenToSend('signInWithPassword', input.captchaResponse)
  let answered = false
  const first = { method: 'password' as const, email: input.email, redirect: input.redirect ?? null, remember: input.remember }
  const signedIn = await afterFirstFactor(
    request,
    limit,
    first,
    async () => {
      const { idToken } = await getIdentity().signInWithPassword(input.email, input.password, { captchaResponse })
      answered = true
      recordCaptchaOutcome('signInWithPassword', captchaResponse !== undefined, null)
      return { idToken }
    },
    context,
  )
  if (signedIn.ok) return signedIn
  const code = codeOf(signedIn.error)
  // A failure after the identity call (the session cookie) was counted as passed above.
  if (!answered) recordCaptchaOutcome('signInWithPassword', captchaResponse !== undefined, code)

  securityEvent('sign-in-failure', { reqId: context.requestId, ip: context.clientIp, email: input.email, code })
  recordSignIn(code)
  return { ok: false, ...(await passwordRefused(code, limit, input.captchaResponse)) }
}

export type PasswordRefusal = Omit<Extract<SignInOutcome, { ok: false }>, 'ok' | 'retryAfterSeconds'>

/**
 * A password the service did not accept, at sign-in or when confirming it is you: its points and
 * its answer. A wrong password keeps its points; a captcha demand or a failing service judged
 * nothing. `posted` is the captcha field as the form posted it (see signInWithPassword).
 */
export async function passwordRefused(
  code: AuthCode,
  attempt: { release(outcome: 'failure' | 'void'): Promise<void> },
  posted: string | undefined,
): Promise<PasswordRefusal> {
  // Codes that say "these credentials do not open an account" are all answered alike (no enumeration).
  const credentials = groupOf(code) === 'credentials'
  await attempt.release(credentials ? 'failure' : 'void')
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
  const { key, status } = outcomeOf(code)
  return { status, message: key }
}
