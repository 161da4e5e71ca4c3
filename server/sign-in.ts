import type { AppLoadContext } from '@remix-run/node'
import { rotateCsrf } from './csrf'
import { deviceCookie, deviceIdFor } from './device'
import { getIdentity, isIdentityError, messageKeyFor, mfaRequiredOf, type AuthCode, type MessageKey } from './identity'
import { recordSignIn } from './observability/metrics'
import { securityEvent } from './observability/security-events'
import { consumeSignIn } from './rate-limit'
import { defaultRedirect, resolveRedirect } from './redirect'
import { beginSecondFactor } from './second-factor'
import { createSession } from './session'
import { syncToken } from './token-sync'

export type SignInOutcome =
  | { ok: true; setCookies: string[]; location: string }
  | { ok: false; status: number; message: MessageKey; retryAfterSeconds?: number; captchaSiteKey?: string }

/** Codes that say "these credentials do not open an account", all answered alike (no enumeration). */
const CREDENTIAL_FAILURES: ReadonlySet<AuthCode> = new Set([
  'auth/wrong-password',
  'auth/user-not-found',
  'auth/invalid-credential',
  'auth/user-disabled',
  'auth/missing-password',
  'auth/invalid-email',
])

const CAPTCHA_CODES: ReadonlySet<AuthCode> = new Set(['auth/missing-recaptcha-token', 'auth/invalid-recaptcha-token'])

export function statusFor(message: MessageKey): number {
  switch (message) {
    case 'error.wrongCredentials':
      return 401
    case 'error.tooManyRequests':
      return 429
    case 'error.unexpected':
      return 503
    default:
      return 400
  }
}

export type SignInMethod = 'password' | 'email-link' | 'sso'

/**
 * The end of every sign-in (password, email link, single sign-on): the session cookie from a fresh
 * ID token and the device cookie naming the account (server/device.ts; none without an email),
 * token sync, the security event, and where to go (the redirect policy, checked again). The caller
 * appends every one of `setCookies` to its response. Throws when the session cannot be made; the
 * caller answers with its own message.
 */
export async function signInWithIdToken(
  idToken: string,
  input: { email: string | null; method: SignInMethod; redirect: string | null; secondFactor?: 'phone' | 'totp' },
  context: AppLoadContext,
): Promise<{ setCookies: string[]; location: string }> {
  // A CSRF token seen before the sign-in (a shared computer, or planted) is worth nothing after it.
  const setCookies = [await createSession(idToken, { secondFactor: input.secondFactor !== undefined }), rotateCsrf()]
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
  const target = await resolveRedirect(input.redirect, context.publicOrigin)
  return { setCookies, location: target.kind === 'ok' ? target.url : defaultRedirect() }
}

/**
 * Password sign-in: the attempt takes its rate-limit points first (a browser holding this
 * account's device cookie is limited per device instead of per account), then the identity call
 * and signInWithIdToken. Only a verdict on the credentials keeps the points (ADR 015).
 */
export async function signInWithPassword(
  request: Request,
  input: { email: string; password: string; captchaResponse?: string; redirect?: string | null },
  context: AppLoadContext,
): Promise<SignInOutcome> {
  const device = deviceIdFor(request, input.email)
  const limit = await consumeSignIn({ ip: context.clientIp, email: input.email, device, reqId: context.requestId })
  if (!limit.ok) {
    recordSignIn('auth/too-many-requests')
    return { ok: false, status: 429, message: 'error.tooManyRequests', retryAfterSeconds: limit.retryAfterSeconds }
  }

  let code: AuthCode
  try {
    const result = await getIdentity().signInWithPassword(input.email, input.password, {
      captchaResponse: input.captchaResponse,
    })
    const session = await signInWithIdToken(
      result.idToken,
      { email: input.email, method: 'password', redirect: input.redirect ?? null },
      context,
    )
    await limit.release('success')
    return { ok: true, ...session }
  } catch (error) {
    const mfa = mfaRequiredOf(error)
    if (mfa) {
      // The password was right but the sign-in is not over: its points come back (ADR 019).
      await limit.release('void')
      const step = { mfa, method: 'password' as const, email: input.email, redirect: input.redirect ?? null }
      return { ok: true, ...(await beginSecondFactor(request, step, context)) }
    }
    code = isIdentityError(error) ? error.code : 'auth/internal-error'
  }

  securityEvent('sign-in-failure', { reqId: context.requestId, ip: context.clientIp, email: input.email, code })
  recordSignIn(code)
  // A wrong password keeps its points; a captcha demand or a failing service judged nothing.
  await limit.release(CREDENTIAL_FAILURES.has(code) ? 'failure' : 'void')
  if (CAPTCHA_CODES.has(code)) {
    const siteKey = await captchaSiteKey()
    if (siteKey) return { ok: false, status: 400, message: 'error.captchaRequired', captchaSiteKey: siteKey }
    return { ok: false, status: 503, message: 'error.unexpected' }
  }
  if (CREDENTIAL_FAILURES.has(code)) return { ok: false, status: 401, message: 'error.wrongCredentials' }
  const message = messageKeyFor(code)
  return { ok: false, status: statusFor(message), message }
}

async function captchaSiteKey(): Promise<string | null> {
  try {
    // Production answers `projects/…/keys/SITE_KEY`: the widget wants the last part.
    const { recaptchaKey } = await getIdentity().getRecaptchaConfig()
    return recaptchaKey?.split('/').pop() || null
  } catch {
    return null
  }
}
