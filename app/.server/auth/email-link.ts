import type { AppLoadContext } from '~/.server/context'
import type { Locale } from '~/lib/i18n'
import { continueUrlFor, redirectFromContinueUrl } from './continue-url'
import { z } from 'zod'
import { COOKIES } from '~/.server/cookies'
import { flowCookie } from './flow-state'
import { codeOf, getIdentity, isLinkFailure } from '~/.server/identity'
import { messageOf, type MessageKey } from './code-messages'
import { logger, hashEmail, securityEvent } from '~/.server/ops/logger'
import { deviceIdFor, getRateLimits } from '~/.server/policy/rate-limit'
import { checkedRedirect, type CheckedRedirect } from '~/.server/policy/redirect'
import { page, redirectTo, type Redirect, type Result } from '~/.server/result'
import { signInLink } from '~/lib/sign-in-link'
import { sendProtectedOobCode } from './protected-email'
import { afterFirstFactor } from './first-factor'
import { whoOf } from './session'
import { limitMessage } from '~/lib/limits'
import { rememberSent, resendable } from './email-sent'

// Kept so that opening the link on the same browser needs only a
// click. On another device Firebase requires the address typed again.
const LinkRequestSchema = z.object({ email: z.string().min(1), remember: z.boolean() })
export const emailLinkCookie = flowCookie(COOKIES.emailLink, LinkRequestSchema)

// Same answer whether the account exists or not. Links are counted apart
// from resets so strangers cannot use up the owner's reset budget.
export async function requestEmailLink(
  input: { email: string; locale: Locale; redirect: string | null; captchaResponse?: string },
  context: AppLoadContext,
): Promise<void> {
  const limit = await getRateLimits().consumeEmailLink({ ...whoOf(context), email: input.email })
  if (!limit.ok) return
  logger.info(
    { event: 'email-link-requested', reqId: context.requestId, emailHash: hashEmail(input.email) },
    'sign-in link requested',
  )
  sendProtectedOobCode(
    {
      requestType: 'EMAIL_SIGNIN',
      email: input.email,
      continueUrl: continueUrlFor(input.redirect),
      locale: input.locale,
    },
    input.captchaResponse,
    (code, captcha) => {
      const entry = { event: 'email-link-failed', code, reqId: context.requestId, ...(captcha ? { captcha } : {}) }
      logger.warn(entry, captcha ? 'sign-in link not sent: the reCAPTCHA check refused it' : 'sign-in link not sent')
    },
  )
}

export type EmailLinkOutcome =
  | { ok: true; setCookies: string[]; location: string }
  | { ok: false; status: number; message: EmailLinkMessage; invalidLink?: boolean; retryAt?: number }

export type EmailLinkMessage = MessageKey | 'emailLink.emailMismatch' | 'error.accountDisabled' | 'error.tooManyRequestsAt'

export async function completeEmailLinkSignIn(
  request: Request,
  input: { email: string; oobCode: string; continueUrl: string | null; remember: boolean },
  context: AppLoadContext,
): Promise<EmailLinkOutcome> {
  const device = deviceIdFor(request, input.email)
  const limit = await getRateLimits().consumeSignIn({ ...whoOf(context), email: input.email, device })
  if (!limit.ok) return { ok: false, status: 429, message: 'error.tooManyRequestsAt', ...limitMessage(limit.retryAfterSeconds) }
  const first = {
    method: 'email-link' as const,
    email: input.email,
    redirect: await checkedRedirect(redirectFromContinueUrl(input.continueUrl), context.publicOrigin),
    remember: input.remember,
  }
  const answer = () => getIdentity().signInWithEmailLink(input.email, input.oobCode)
  const signedIn = await afterFirstFactor(request, limit, first, answer, context)
  if (signedIn.ok) return signedIn
  const code = codeOf(signedIn.error)
  securityEvent('sign-in-failure', { ...whoOf(context, input.email), code, method: 'email-link' })
  await limit.release(code === 'auth/invalid-email' ? 'failure' : 'no-verdict')
  if (isLinkFailure(code)) return { ok: false, status: 400, message: 'error.invalidLink', invalidLink: true }
  if (code === 'auth/invalid-email') return { ok: false, status: 400, message: 'emailLink.emailMismatch' }
  // Whoever holds the link controls the mailbox: saying the account is disabled tells them nothing new.
  if (code === 'auth/user-disabled') return { ok: false, status: 403, message: 'error.accountDisabled' }
  const { key, status } = messageOf(code)
  return { ok: false, status, message: key }
}

export async function sendSignInLink(
  request: Request,
  input: {
    email: string
    redirect: CheckedRedirect | null
    locale: Locale
    remember: boolean
    captchaResponse?: string
  },
  context: AppLoadContext,
): Promise<Redirect> {
  const redirect = input.redirect?.param ?? null
  await requestEmailLink({ ...input, redirect }, context)
  const asked = { email: input.email, remember: input.remember }
  const cookies = [...emailLinkCookie.write(request, asked), ...rememberSent(request, input.email, 'sign-in-link')]
  return redirectTo(signInLink(redirect, { emailLink: 'sent' }), { cookies })
}

/**
 * "Send the link again" (ADR 083): after the wait, this browser's address and "Keep me signed in" go the first
 * send's way, with its checks and limits; within it, the page that says it went, with the limits' message.
 */
export async function resendSignInLink(
  request: Request,
  input: Omit<Parameters<typeof sendSignInLink>[1], 'email' | 'remember'> & { kept: { email: string; remember: boolean } },
  context: AppLoadContext,
): Promise<Result<{ email: string; remember: boolean; formError: 'error.tooManyRequestsAt'; retryAt: number; resend: true }>> {
  const { kept, ...send } = input
  const again = resendable(request, 'sign-in-link')
  if (again === null) return redirectTo(signInLink(send.redirect?.param ?? null))
  if ('retryAt' in again) return page({ ...kept, formError: 'error.tooManyRequestsAt', ...again, resend: true }, { status: 429 })
  const remember = emailLinkCookie.read(request)?.remember ?? false
  return sendSignInLink(request, { ...send, email: again.email, remember }, context)
}
