import { z } from 'zod'
import type { AppLoadContext } from '~/.server/context'
import { codeOf, getIdentity, mfaRequiredOf, type AuthCode } from '~/.server/identity'
import { signInRefused, type SignInRefusal } from '~/.server/auth/code-messages'
import { handleNewSession, whoOf } from '~/.server/auth/session'
import { beginSecondFactor } from '~/.server/auth/second-factor'
import { metrics } from '~/.server/ops/metrics'
import { securityEvent } from '~/.server/ops/logger'
import { deviceIdFor, getRateLimits } from '~/.server/policy/rate-limit'
import { checkedRedirect, defaultRedirect, type CheckedRedirect } from '~/.server/policy/redirect'
import { page, redirectTo, type Result } from '~/.server/result'
import { retryAtAfter } from '~/lib/limits'
import { EmailSchema, PasswordSchema } from '~/lib/schemas'
import type { CaptchaSettings } from '~/lib/recaptcha'

export const SignInFormSchema = z.object({ email: EmailSchema, password: PasswordSchema })

/** What the sign-in page shows again after a refused password sign-in. */
export interface SignInPage {
  email: string
  remember: boolean
  formError: SignInRefusal['message'] | 'error.tooManyRequestsAt'
  captcha: CaptchaSettings | null
  retryAt?: number
}

/**
 * The password sign-in of the page at "/", top to bottom: take the limit; ask the identity service; then
 * a second factor, a refusal or a session. The limit's attempt is released once on each way out.
 */
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
  const { email, remember } = input

  // 1. The limit: per address, per IP, per device.
  const device = deviceIdFor(request, email)
  const limit = await getRateLimits().consumeSignIn({ ...whoOf(context), email, device })
  if (!limit.ok) {
    metrics.signIn.inc({ outcome: 'auth/too-many-requests' })
    const retryAt = retryAtAfter(limit.retryAfterSeconds)
    const data = { email, remember, formError: 'error.tooManyRequestsAt' as const, captcha: null, retryAt }
    return page(data, { status: 429, retryAfter: limit.retryAfterSeconds })
  }

  // A refusal releases the attempt (a failure for wrong credentials, else no verdict) and says why.
  const refuse = async (code: AuthCode): Promise<Result<SignInPage>> => {
    securityEvent('sign-in-failure', { ...whoOf(context, email), code })
    metrics.signIn.inc({ outcome: code })
    const { status, message, captcha } = await signInRefused(code, limit, input.captchaResponse)
    return page({ email, remember, formError: message, captcha: captcha ?? null }, { status })
  }

  // 2. The identity service checks the password (and the reCAPTCHA token, when the project asks for one).
  const first = { method: 'password' as const, email, redirect: input.redirect, remember }
  let idToken: string
  try {
    ;({ idToken } = await getIdentity().signInWithPassword(email, input.password, { captchaResponse: input.captchaResponse }))
  } catch (error) {
    // 3a. A second factor asked: no verdict yet on the attempt; the second-factor page takes over.
    const mfa = mfaRequiredOf(error)
    if (mfa) {
      await limit.release('no-verdict')
      const next = await beginSecondFactor(request, { mfa, ...first, email: mfa.email ?? email }, context)
      return redirectTo(next.location, { cookies: next.setCookies })
    }
    // 3b. Refused.
    return refuse(codeOf(error))
  }

  // 3c. A session.
  try {
    const session = await handleNewSession(idToken, first, context)
    await limit.release('success')
    return redirectTo(session.location, { cookies: session.setCookies })
  } catch (error) {
    return refuse(codeOf(error))
  }
}

/**
 * Where a signed-in visitor was going: the link's continueUrl when the redirect policy accepts it,
 * else DEFAULT_REDIRECT_URL; never this page itself.
 */
export async function continueTarget(
  continueUrl: string | null,
  publicOrigin: string,
): Promise<{ href: string; site: string } | null> {
  const href = (await checkedRedirect(continueUrl, publicOrigin))?.url ?? defaultRedirect()
  const url = URL.parse(href, publicOrigin)
  if (!url || (url.origin === publicOrigin && url.pathname === '/')) return null
  return { href: url.href, site: url.host }
}
