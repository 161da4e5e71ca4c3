import type { AppLoadContext } from '@remix-run/node'
import { getIdentity, isIdentityError, messageKeyFor, type AuthCode, type MessageKey } from './identity'
import { recordSignIn } from './observability/metrics'
import { securityEvent } from './observability/security-events'
import { checkSignIn, clearSignInFailures, recordSignInFailure } from './rate-limit'
import { defaultRedirect, resolveRedirect } from './redirect'
import { createSession } from './session'
import { syncToken } from './token-sync'

export type SignInOutcome =
  | { ok: true; setCookie: string; location: string }
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
 * ID token, token sync, the security event, and where to go (the redirect policy, checked again).
 * Throws when the session cannot be made; the caller answers with its own message.
 */
export async function signInWithIdToken(
  idToken: string,
  input: { email: string | null; method: SignInMethod; redirect: string | null },
  context: AppLoadContext,
): Promise<{ setCookie: string; location: string }> {
  const setCookie = await createSession(idToken)
  await syncToken(idToken)
  securityEvent('sign-in-success', {
    reqId: context.requestId,
    ip: context.clientIp,
    email: input.email ?? undefined,
    method: input.method,
  })
  recordSignIn('success')
  const target = await resolveRedirect(input.redirect, context.publicOrigin)
  return { setCookie, location: target.kind === 'ok' ? target.url : defaultRedirect() }
}

/** Password sign-in: rate limits, the identity call, then signInWithIdToken. */
export async function signInWithPassword(
  input: { email: string; password: string; captchaResponse?: string; redirect?: string | null },
  context: AppLoadContext,
): Promise<SignInOutcome> {
  const who = { ip: context.clientIp, email: input.email, reqId: context.requestId }
  const limit = await checkSignIn(who)
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
    await clearSignInFailures(who)
    return { ok: true, ...session }
  } catch (error) {
    code = isIdentityError(error) ? error.code : 'auth/internal-error'
  }

  securityEvent('sign-in-failure', { reqId: context.requestId, ip: context.clientIp, email: input.email, code })
  recordSignIn(code)
  if (CAPTCHA_CODES.has(code)) {
    const siteKey = await captchaSiteKey()
    if (siteKey) return { ok: false, status: 400, message: 'error.captchaRequired', captchaSiteKey: siteKey }
    return { ok: false, status: 503, message: 'error.unexpected' }
  }
  if (CREDENTIAL_FAILURES.has(code)) {
    await recordSignInFailure(who)
    return { ok: false, status: 401, message: 'error.wrongCredentials' }
  }
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
