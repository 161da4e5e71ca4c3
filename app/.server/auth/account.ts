import type { AppLoadContext } from '~/.server/context'
import { getConfig } from '~/.server/config'
import { getIdentity } from '~/.server/identity'
import { refusalOf, type MessageKey } from './code-messages'
import { refuseNewPassword, refusedByService, type PasswordRefusal } from '~/.server/policy/common-passwords'
import { getRateLimits } from '~/.server/policy/rate-limit'
import { checkedRedirect, localPathOr } from '~/.server/policy/redirect'
import { getFlags } from '~/.server/ops/flags'
import { securityEvent } from '~/.server/ops/logger'
import { page, redirectTo, respond, unavailable, type Result } from '~/.server/result'
import { providerName } from '~/lib/providers'
import { limitMessage } from '~/lib/limits'
import { pageAddress, signInLink } from '~/lib/sign-in-link'
import { COOKIES, clearCookie } from '~/.server/cookies'
import { getLocale } from '~/.server/i18n'
import { logoutCookies } from './logout'
import { confirmStep, type ConfirmThen } from './recent-login'
import { readAccount, revokeSessions } from './identity-admin'
import { getSessionStore } from './session-store'
import { endSessionOf, endThisSession, pageSession, syncToken, whoOf, type SessionUser } from './session'
import { afterFirstFactor } from './first-factor'
import { ssoOffered } from './sso'
import { sendVerificationEmail } from './verification'
import { rememberSent, resendable } from './email-sent'

export const ACCOUNT_PATHS = {
  password: '/account/password',
  email: '/account/email',
  delete: '/account/delete',
} as const

// Anyone not signed in goes to sign-in and comes back here.
// A cookie the service could not judge gets the 503 page (see ADR 029).
export async function requireSignedIn(request: Request): Promise<SessionUser> {
  const { session, cookies } = await pageSession(request)
  if (session.status === 'signed-in') return session.user
  if (session.status === 'unavailable') throw respond(unavailable())
  throw respond(redirectTo(signInLink(pageAddress(request.url)), { status: 302, cookies }))
}

export interface ConfirmedUser {
  user: SessionUser
  idToken: string
}

export async function requireConfirmed(request: Request, path: string): Promise<ConfirmedUser> {
  const user = await requireSignedIn(request)
  const idToken = user.recentIdToken
  if (!idToken) throw confirmFirst(path)
  return { user, idToken }
}

export async function withoutPassword(user: SessionUser): Promise<{ provider: string | null; sso: boolean } | null> {
  const account = await readAccount(user.uid).catch(() => null)
  if (!account) return user.email ? null : { provider: null, sso: false }
  if (account.providers.some((p) => p.providerId === 'password')) return null
  const { ssoProviderId, ssoProviderName } = getConfig()
  const ofThePortal = account.providers.find((p) => p.providerId === ssoProviderId)
  const names = [...(ofThePortal ? [ofThePortal] : []), ...account.providers].map((p) =>
    providerName(p.providerId, p.providerId === ssoProviderId ? ssoProviderName : null),
  )
  return {
    provider: names.find((name) => name !== null) ?? null,
    sso: ofThePortal !== undefined && ssoOffered(await getFlags()),
  }
}

export function accountPath(next: string | null): string {
  const path = localPathOr(next, '/account')
  const pathname = path.split('?')[0]
  return pathname === '/account' || pathname?.startsWith('/account/') ? path : '/account'
}

export const confirmFirst = (path: string, then: ConfirmThen | null = null) => respond<never>(confirmStep(path, then))

export const backToAccount = () => respond(redirectTo('/account', { status: 302 }))

// VERIFY_EMAIL needs an ID token, which the portal keeps only after "Confirm
// it's you": without one the email goes once the visitor has confirmed.
// "Send the email again" (`resend`) pressed within the wait gets the limits' own message (ADR 083).
export async function verifyOwnEmail(
  request: Request,
  user: SessionUser,
  context: AppLoadContext,
  resend = false,
): Promise<Result<{ retryAt: number }>> {
  const again = resend ? resendable(request, 'verify') : null
  if (again && 'retryAt' in again) return page(again, { status: 429 })
  const idToken = user.recentIdToken
  if (!idToken) return confirmStep('/account', 'verify')
  const { location, cookies } = await sendVerificationEmail(request, user, idToken, context)
  return redirectTo(location, { cookies })
}

export type PasswordChangePage =
  | ({ status: 'invalid' } & PasswordRefusal)
  | { status: 'error'; message: MessageKey | 'error.tooManyRequestsAt'; retryAt?: number }
  | { status: 'signed-out' }

const PASSWORD_CHANGED = '/account?done=password'

// Every session of the account is revoked, then this browser signs in
// again: a session made from the old token would count as revoked.
export async function changeOwnPassword(
  request: Request,
  { user, idToken }: ConfirmedUser,
  input: { password: string; confirmation: string },
  context: AppLoadContext,
): Promise<Result<PasswordChangePage>> {
  const email = user.email
  if (!email) return confirmStep(ACCOUNT_PATHS.password)
  const policy = { minLength: getConfig().passwordMinLength, email }
  const refusal = await refuseNewPassword(input, policy)
  if (refusal) return page({ status: 'invalid', ...refusal } as const, { status: 400 })

  const limit = await getRateLimits().consumeNewPassword(whoOf(context))
  if (!limit.ok) return page({ status: 'error', message: 'error.tooManyRequestsAt', ...limitMessage(limit.retryAfterSeconds) } as const, { status: 429 })
  try {
    await getIdentity().changePassword(idToken, input.password)
  } catch (error) {
    const { code, key, status } = await refusalOf(error, limit)
    if (code === 'auth/weak-password') {
      return page({ status: 'invalid', ...(await refusedByService(input.password, policy)) } as const, { status: 400 })
    }
    if (code === 'auth/requires-recent-login') return confirmStep(ACCOUNT_PATHS.password)
    return page({ status: 'error', message: key } as const, { status })
  }
  await limit.release('success')
  securityEvent('password-changed', whoOf(context, email))
  const signIn = async () => {
    const redirect = await checkedRedirect(PASSWORD_CHANGED, context.publicOrigin)
    const first = { method: 'password' as const, email, redirect, remember: user.remembered }
    // The password was just set here: this sign-in is not a guess and takes no points.
    const free = { release: async () => undefined }
    const answer = () => getIdentity().signInWithPassword(email, input.password)
    return afterFirstFactor(request, free, first, answer, context)
  }
  const failed = (error: unknown) => ({ ok: false as const, error })
  const signedIn = await Promise.all([revokeSessions(user.uid), endThisSession(request)]).then(signIn, failed)
  if (signedIn.ok) return redirectTo(signedIn.location, { cookies: signedIn.setCookies })
  return page({ status: 'signed-out' } as const, { cookies: [clearCookie(COOKIES.session)] })
}

export type EmailChangePage = { email: string; formError: MessageKey | 'error.tooManyRequestsAt'; retryAt?: number }

// Same answer whether or not the new address has an account. Counted per account
// and under the new address, so an account cannot relay mail to strangers.
export async function requestEmailChange(
  request: Request,
  { user, idToken }: ConfirmedUser,
  newEmail: string,
  context: AppLoadContext,
): Promise<Result<EmailChangePage>> {
  const limit = await getRateLimits().consumeEmailChange({ ...whoOf(context), email: newEmail, account: user.uid })
  if (!limit.ok) return page({ email: newEmail, formError: 'error.tooManyRequestsAt', ...limitMessage(limit.retryAfterSeconds) }, { status: 429 })
  try {
    await getIdentity().sendOobCode({ requestType: 'VERIFY_AND_CHANGE_EMAIL', idToken, newEmail, locale: getLocale(request) })
  } catch (error) {
    const { code, key, status } = await refusalOf(error, limit)
    if (code === 'auth/requires-recent-login') {
      await limit.release('no-verdict')
      return confirmStep(ACCOUNT_PATHS.email)
    }
    if (status >= 500) return page({ email: newEmail, formError: key }, { status })
  }
  securityEvent('email-change-requested', whoOf(context, user.email))
  // The page that says it went, with the new address as typed (ADR 083).
  return redirectTo(`${ACCOUNT_PATHS.email}?sent=1`, { cookies: rememberSent(request, newEmail, 'email-change') })
}

export type DeletePage = { email: string; emailError?: 'deleteAccount.mismatch'; formError?: MessageKey | 'deleteAccount.restricted' | 'error.tooManyRequestsAt'; retryAt?: number }

export async function deleteOwnAccount(
  request: Request,
  { user, idToken }: ConfirmedUser,
  typed: string,
  context: AppLoadContext,
): Promise<Result<DeletePage>> {
  if (!user.email) return confirmStep(ACCOUNT_PATHS.delete)
  if (typed.trim().toLowerCase() !== user.email.toLowerCase()) {
    return page({ email: typed, emailError: 'deleteAccount.mismatch' }, { status: 400 })
  }
  const limit = await getRateLimits().consumeNewPassword(whoOf(context))
  if (!limit.ok) return page({ email: typed, formError: 'error.tooManyRequestsAt', ...limitMessage(limit.retryAfterSeconds) }, { status: 429 })
  try {
    await getIdentity().deleteAccount(idToken)
  } catch (error) {
    const { code, key, status } = await refusalOf(error, limit)
    if (code === 'auth/requires-recent-login') return confirmStep(ACCOUNT_PATHS.delete)
    const formError = code === 'auth/admin-restricted-operation' ? 'deleteAccount.restricted' : key
    return page({ email: typed, formError }, { status })
  }
  await limit.release('success')
  securityEvent('account-deleted', whoOf(context, user.email))
  await getSessionStore().removeAll(user.uid).catch(() => endThisSession(request).catch(() => undefined))
  await syncToken(null)
  return redirectTo(`${ACCOUNT_PATHS.delete}?deleted`, { cookies: [...logoutCookies(), clearCookie(COOKIES.device)] })
}

export async function endOtherSession(user: SessionUser, key: string, context: AppLoadContext): Promise<Result> {
  if (key === user.sessionKey) return redirectTo('/logout')
  const ended = await endSessionOf(user, key).catch(() => null)
  if (ended === null) return unavailable()
  if (ended) securityEvent('session-ended', whoOf(context, user.email))
  return redirectTo(`/account?done=${ended ? 'session-ended' : 'session-gone'}`)
}
