import type { AppLoadContext } from '~/.server/context'
import { getConfig } from '~/.server/config'
import { codeOf, getIdentity } from '~/.server/identity'
import { messageOf, type MessageKey } from './code-messages'
import { refuseNewPassword, refusedByService, type PasswordRefusal } from '~/.server/policy/common-passwords'
import { consumeEmailChange, consumeNewPassword } from '~/.server/policy/rate-limit'
import { checkedRedirect, localPathOr } from '~/.server/policy/redirect'
import { getFlags } from '~/.server/ops/flags'
import { securityEvent } from '~/.server/ops/security-events'
import { page, redirectTo, respond, unavailable, type Result } from '~/.server/result'
import { providerName } from '~/lib/providers'
import { limitMessage } from '~/lib/limits'
import { pageAddress, signInLink } from '~/lib/sign-in-link'
import { COOKIES, clearCookie } from '~/.server/cookies'
import { getLocale } from '~/.server/i18n'
import { logoutCookies } from './logout'
import { confirmStep, type ConfirmThen } from './recent-login'
import { readAccount } from './identity-admin'
import {
  clearSessionCookie,
  endAccountSessions,
  endEverySession,
  endSessionOf,
  endThisSession,
  getSession,
  type SessionUser,
} from './session'
import { afterFirstFactor } from './sign-in'
import { ssoOffered } from './sso'
import { syncToken } from './token-sync'
import { accountPageAfterVerification, sendVerificationEmail } from './verification'

/** The account pages whose changes need "Confirm it's you" first (ADR 036). */
export const ACCOUNT_PATHS = {
  password: '/account/password',
  email: '/account/email',
  delete: '/account/delete',
} as const

/**
 * The signed-in visitor of an account page. Anyone else goes to sign-in, which brings them back
 * here (`redirect`); a cookie the service refused is cleared on the way; while the service cannot
 * judge the cookie, the 503 page (ADR 029).
 */
export async function requireSignedIn(request: Request): Promise<SessionUser> {
  const session = await getSession(request)
  if (session.status === 'signed-in') return session.user
  if (session.status === 'unavailable') throw respond(unavailable())
  const cookies = session.status === 'invalid' ? [clearSessionCookie()] : []
  throw respond(redirectTo(signInLink(pageAddress(request.url)), { status: 302, cookies }))
}

/** The signed-in visitor with the fresh ID token "Confirm it's you" sealed (ADR 036). */
export interface ConfirmedUser {
  user: SessionUser
  idToken: string
}

/** The signed-in visitor who confirmed it is them lately; anyone else confirms first, then comes back to `path`. */
export async function requireConfirmed(request: Request, path: string): Promise<ConfirmedUser> {
  const user = await requireSignedIn(request)
  const idToken = user.recentIdToken
  if (!idToken) throw confirmFirst(path)
  return { user, idToken }
}

/**
 * How an account without a password confirms it is you: null when it has one (or when the service
 * cannot say: the password step then answers for itself), else the provider it signs in with, by
 * name when the portal knows it, and whether that is the portal's single sign-on, offered now
 * (`sso`: the page sends the visitor through it, ADR 043).
 */
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

/** Where "Confirm it's you" returns: an account page only, else `/account`. */
export function accountPath(next: string | null): string {
  const path = localPathOr(next, '/account')
  const pathname = path.split('?')[0]
  return pathname === '/account' || pathname?.startsWith('/account/') ? path : '/account'
}

/** The same step as a response, for a loader to throw; a redirect carries no page data (`never`). */
export const confirmFirst = (path: string, then: ConfirmThen | null = null) => respond<never>(confirmStep(path, then))

/** Back to the account page, for a loader whose page does not apply to this account (no password, no such factor). */
export const backToAccount = () => respond(redirectTo('/account', { status: 302 }))

/**
 * "Send verification email": VERIFY_EMAIL needs an ID token, and the portal keeps one only after
 * "Confirm it's you" (ADR 036): without it the visitor confirms first, and the email goes as the
 * confirmation ends, without a second press. Either way the account page then says how it went.
 */
export async function verifyOwnEmail(
  request: Request,
  user: SessionUser,
  context: AppLoadContext,
): Promise<Result> {
  const idToken = user.recentIdToken
  if (!idToken) return confirmStep('/account', 'verify')
  return redirectTo(accountPageAfterVerification(await sendVerificationEmail(request, user, idToken, context)))
}

/** The password page again: a refused password, a failure, or changed with this browser signed out. */
export type PasswordChangePage =
  | ({ status: 'invalid' } & PasswordRefusal)
  | { status: 'error'; message: MessageKey | 'error.tooManyRequestsAt'; retryAt?: number }
  | { status: 'signed-out' }

/** Where a password change ends, signed in again: the account page, which says so. */
const PASSWORD_CHANGED = '/account?done=password'

/**
 * Changes the signed-in account's password with the fresh ID token "Confirm it's you" sealed.
 * Every session of the account ends (the service's revocation), then this browser signs in again
 * with the new password: a session minted from the old token would count as revoked, its sign-in
 * being older than the revocation. An account with a second factor signs in through its step.
 * Signed in again, the account page says so, after a redirect (the CSRF token was renewed).
 */
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

  const limit = await consumeNewPassword({ ip: context.clientIp, reqId: context.requestId })
  if (!limit.ok) return page({ status: 'error', message: 'error.tooManyRequestsAt', ...limitMessage(limit.retryAfterSeconds) } as const, { status: 429 })
  try {
    await getIdentity().changePassword(idToken, input.password)
  } catch (error) {
    const code = codeOf(error)
    if (code === 'auth/weak-password') {
      return page({ status: 'invalid', ...(await refusedByService(input.password, policy)) } as const, { status: 400 })
    }
    if (code === 'auth/requires-recent-login') return confirmStep(ACCOUNT_PATHS.password)
    const { key, status } = messageOf(code)
    if (status >= 500) await limit.release('no-verdict')
    return page({ status: 'error', message: key } as const, { status })
  }
  await limit.release('success')
  securityEvent('password-changed', { reqId: context.requestId, ip: context.clientIp, email })
  // Every session ends at the service; this browser's record goes now, and it signs in again below.
  const signedIn = await Promise.all([endEverySession(user.uid), endThisSession(request)]).then(
    async () =>
      afterFirstFactor(
        request,
        // The password was just set here: this sign-in is no guess and takes no points.
        { release: async () => undefined },
        {
          method: 'password',
          email,
          redirect: await checkedRedirect(PASSWORD_CHANGED, context.publicOrigin),
          remember: user.remembered,
        },
        () => getIdentity().signInWithPassword(email, input.password),
        context,
      ),
    (error: unknown) => ({ ok: false as const, error }),
  )
  if (signedIn.ok) return redirectTo(signedIn.location, { cookies: signedIn.setCookies })
  // The password is changed; a captcha or a failing service keeps this browser from its fresh
  // session: it signs in again like every other device.
  return page({ status: 'signed-out' } as const, { cookies: [clearSessionCookie()] })
}

/** The email page again: the link sent, or the address kept with what went wrong. */
export type EmailChangePage = { sent: true } | { email: string; formError: MessageKey | 'error.tooManyRequestsAt'; retryAt?: number }

/**
 * Sends the link that changes the sign-in address to `newEmail` (VERIFY_AND_CHANGE_EMAIL); opening
 * it (/action) makes the change. The answer is the same whether or not that address already has an
 * account (`auth/email-already-in-use` included): only a service that could not be asked is told.
 * Counted in the reset emails' limits, under the new address, and per account whatever the client:
 * each email sent keeps its points, so an account cannot relay mail to strangers' addresses.
 */
export async function requestEmailChange(
  request: Request,
  { user, idToken }: ConfirmedUser,
  newEmail: string,
  context: AppLoadContext,
): Promise<Result<EmailChangePage>> {
  const limit = await consumeEmailChange({ ip: context.clientIp, email: newEmail, account: user.uid, reqId: context.requestId })
  if (!limit.ok) return page({ email: newEmail, formError: 'error.tooManyRequestsAt', ...limitMessage(limit.retryAfterSeconds) }, { status: 429 })
  try {
    await getIdentity().sendOobCode({ requestType: 'VERIFY_AND_CHANGE_EMAIL', idToken, newEmail, locale: getLocale(request) })
  } catch (error) {
    const code = codeOf(error)
    if (code === 'auth/requires-recent-login') {
      await limit.release('no-verdict')
      return confirmStep(ACCOUNT_PATHS.email)
    }
    const { key, status } = messageOf(code)
    if (status >= 500) {
      await limit.release('no-verdict')
      return page({ email: newEmail, formError: key }, { status })
    }
  }
  securityEvent('email-change-requested', { reqId: context.requestId, ip: context.clientIp, email: user.email ?? undefined })
  return page({ sent: true })
}

/** The delete page again: the address kept, with the mismatch or what went wrong. */
export type DeletePage = { email: string; emailError?: 'deleteAccount.mismatch'; formError?: MessageKey | 'deleteAccount.restricted' | 'error.tooManyRequestsAt'; retryAt?: number }

/**
 * Deletes the signed-in account once its address was typed again: token sync hears of it
 * (DELETE), this browser's session ends, and the session, flow and device cookies are cleared.
 * A project that forbids it (`auth/admin-restricted-operation`) is said so plainly. Deleted, the
 * page says so, signed out.
 */
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
  const limit = await consumeNewPassword({ ip: context.clientIp, reqId: context.requestId })
  if (!limit.ok) return page({ email: typed, formError: 'error.tooManyRequestsAt', ...limitMessage(limit.retryAfterSeconds) }, { status: 429 })
  try {
    await getIdentity().deleteAccount(idToken)
  } catch (error) {
    const code = codeOf(error)
    if (code === 'auth/requires-recent-login') return confirmStep(ACCOUNT_PATHS.delete)
    const { key, status } = messageOf(code)
    if (status >= 500) await limit.release('no-verdict')
    const formError = code === 'auth/admin-restricted-operation' ? 'deleteAccount.restricted' : key
    return page({ email: typed, formError }, { status })
  }
  await limit.release('success')
  securityEvent('account-deleted', { reqId: context.requestId, ip: context.clientIp, email: user.email })
  // Every record of the deleted account ends here (nothing of it is kept); its other browsers are signed out.
  await endAccountSessions(user.uid).catch(() => endThisSession(request).catch(() => undefined))
  await syncToken(null)
  return redirectTo(`${ACCOUNT_PATHS.delete}?deleted`, { cookies: [...logoutCookies(), clearCookie(COOKIES.device)] })
}

/**
 * "End session" on another browser of this account: its record ends, so that browser is signed out
 * at its next page. A key that is not one of this account's live sessions ends nothing.
 */
export async function endOtherSession(user: SessionUser, key: string, context: AppLoadContext): Promise<Result> {
  if (key === user.sessionKey) return redirectTo('/logout')
  const ended = await endSessionOf(user, key).catch(() => null)
  if (ended === null) return unavailable()
  if (ended) securityEvent('session-ended', { reqId: context.requestId, ip: context.clientIp, email: user.email ?? undefined })
  return redirectTo(`/account?done=${ended ? 'session-ended' : 'session-gone'}`)
}
