import type { AppLoadContext } from '~/.server/context'
import { codeOf, getIdentity, mfaRequiredOf } from '~/.server/identity'
import { recordSignIn } from '~/.server/ops/metrics'
import { securityEvent } from '~/.server/ops/security-events'
import { consumeSignIn, deviceIdFor } from '~/.server/policy/rate-limit'
import { captchaTokenToSend, recordCaptchaOutcome } from '~/.server/policy/recaptcha'
import type { CheckedRedirect } from '~/.server/policy/redirect'
import { page, redirectTo, type Result } from '~/.server/result'
import { retryAtAfter } from '~/lib/limits'
import type { CaptchaSettings } from '~/lib/recaptcha'
import { signInRefused, signInWithIdToken, type SignInRefusal } from './finish-sign-in'
import { beginSecondFactor } from './second-factor'

export interface SignInPage {
  email: string
  remember: boolean
  formError: SignInRefusal['message'] | 'error.tooManyRequestsAt'
  captcha: CaptchaSettings | null
  retryAt?: number
}

export async function afterFirstFactor(
  request: Request,
  attempt: { release(outcome: 'success' | 'no-verdict'): Promise<void> },
  first: { method: 'password' | 'email-link' | 'passkey'; email: string; redirect: CheckedRedirect | null; remember: boolean },
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
    await attempt.release('no-verdict')
    return {
      ok: true,
      ...(await beginSecondFactor(request, { mfa, ...first, email: mfa.email ?? first.email }, context)),
    }
  }
}

export async function signInWithPassword(
  request: Request,
  input: {
    email: string
    password: string
    remember: boolean
    captchaResponse?: string
    redirect: CheckedRedirect | null
  },
  context: AppLoadContext,
): Promise<Result<SignInPage>> {
  const refused = ({ status, message, captcha }: SignInRefusal) =>
    page({ email: input.email, remember: input.remember, formError: message, captcha: captcha ?? null }, { status })
  const device = deviceIdFor(request, input.email)
  const limit = await consumeSignIn({ ip: context.clientIp, email: input.email, device, reqId: context.requestId })
  if (!limit.ok) {
    recordSignIn('auth/too-many-requests')
    const retryAt = retryAtAfter(limit.retryAfterSeconds)
    const data = { email: input.email, remember: input.remember, formError: 'error.tooManyRequestsAt' as const, captcha: null, retryAt }
    return page(data, { status: 429, retryAfter: limit.retryAfterSeconds })
  }

  const captchaResponse = captchaTokenToSend('signInWithPassword', input.captchaResponse)
  let answered = false
  const first = { method: 'password' as const, email: input.email, redirect: input.redirect, remember: input.remember }
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
  if (signedIn.ok) return redirectTo(signedIn.location, { cookies: signedIn.setCookies })
  const code = codeOf(signedIn.error)
  // A failure after the identity call (making the session) was already counted as passed above.
  if (!answered) recordCaptchaOutcome('signInWithPassword', captchaResponse !== undefined, code)

  securityEvent('sign-in-failure', { reqId: context.requestId, ip: context.clientIp, email: input.email, code })
  recordSignIn(code)
  return refused(await signInRefused(code, limit, input.captchaResponse))
}
