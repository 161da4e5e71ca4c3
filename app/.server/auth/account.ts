import { data, redirect } from 'react-router'
import type { AppLoadContext } from '~/.server/context'
import { getConfig } from '~/.server/config'
import { codeOf, getIdentity, outcomeOf, type MessageKey } from '~/.server/identity'
import { refuseNewPassword, refusedByService, type PasswordRefusal } from '~/.server/policy/common-passwords'
import { consumeNewPassword, consumeReset } from '~/.server/policy/rate-limit'
import { checkedRedirect, localPathOr } from '~/.server/policy/redirect'
import { getFlags } from '~/.server/ops/flags'
import { securityEvent } from '~/.server/ops/security-events'
import { NO_STORE } from '~/lib/headers'
import { providerName } from '~/lib/providers'
import { COOKIES, clearCookie } from '~/.server/cookies'
import { getLocale } from '~/.server/i18n'
import { endEverySession, endThisSession, logoutCookies } from './logout'
import { clearRecentLogin, confirmPageWith, type ConfirmThen } from './recent-login'
import { clearSessionCookie, getSession, readAccount, type SessionUser } from './session'
import { afterFirstFactor } from './sign-in'
import { ssoOffered } from './sso'
import { syncToken } from './token-sync'

/**
 * The signed-in visitor of an account page. Anyone else goes to sign-in, which brings them back
 * here (`redirect`); a cookie the service refused is cleared on the way; while the service cannot
 * judge the cookie, the 503 page (ADR 029).
 */
export async function requireSignedIn(request: Request): Promise<SessionUser> {
  const session = await getSession(request)
  if (session.status === 'signed-in') return session.user
  if (session.status === 'unavailable') throw data({ reason: 'identity-unavailable' }, { status: 503, headers: NO_STORE })
  const url = new URL(request.url)
  const headers = new Headers(NO_STORE)
  if (session.status === 'invalid') headers.append('Set-Cookie', clearSessionCookie())
  throw redirect(`/?${new URLSearchParams({ redirect: url.pathname + url.search })}`, { headers })
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

/** The recent-login step, then back to `path`, doing `then` on the way. */
export function confirmFirst(path: string, then: ConfirmThen | null = null): Response {
  return redirect(confirmPageWith({ next: path, then }), { status: 303, headers: NO_STORE })
}

export type PasswordChangeOutcome =
  /**
   * Changed; go to `location`: the account page with this browser's fresh session, or the
   * second-factor step that makes it. Null when it could not be made (sign in again).
   */
  | { status: 'done'; setCookies: string[]; location: string | null }
  /** The service wants a fresher sign-in: through "Confirm it's you" again. */
  | { status: 'confirm' }
  | ({ status: 'invalid'; httpStatus: 400 } & PasswordRefusal)
  | { status: 'error'; httpStatus: number; message: MessageKey }

/** Where a password change ends, signed in again: the account page, which says so. */
const PASSWORD_CHANGED = '/account?done=password'

/**
 * Changes the signed-in account's password with the fresh ID token "Confirm it's you" sealed.
 * Every session of the account ends (the service's revocation), then this browser signs in again
 * with the new password: a session minted from the old token would count as revoked, its sign-in
 * being older than the revocation. An account with a second factor signs in through its step.
 */
export async function changeOwnPassword(
  request: Request,
  user: SessionUser & { email: string },
  idToken: string,
  input: { password: string; confirmation: string },
  context: AppLoadContext,
): Promise<PasswordChangeOutcome> {
  const policy = { minLength: getConfig().passwordMinLength, email: user.email }
  const refusal = refuseNewPassword(input, policy)
  if (refusal) return { status: 'invalid', httpStatus: 400, ...refusal }

  const limit = await consumeNewPassword({ ip: context.clientIp, reqId: context.requestId })
  if (!limit.ok) return { status: 'error', httpStatus: 429, message: 'error.tooManyRequests' }
  try {
    await getIdentity().changePassword(idToken, input.password)
  } catch (error) {
    const code = codeOf(error)
    if (code === 'auth/weak-password') return { status: 'invalid', httpStatus: 400, ...refusedByService(input.password, policy) }
    if (code === 'auth/requires-recent-login') return { status: 'confirm' }
    const { key, status } = outcomeOf(code)
    if (status >= 500) await limit.release('void')
    return { status: 'error', httpStatus: status, message: key }
  }
  await limit.release('success')
  securityEvent('password-changed', { reqId: context.requestId, ip: context.clientIp, email: user.email })
  const setCookies = [clearRecentLogin()]
  const signedIn = await endEverySession(user.uid).then(
    async () =>
      afterFirstFactor(
        request,
        // The password was just set here: this sign-in is no guess and takes no points.
        { release: async () => undefined },
        {
          method: 'password',
          email: user.email,
          redirect: await checkedRedirect(PASSWORD_CHANGED, context.publicOrigin),
          remember: user.remembered,
        },
        () => getIdentity().signInWithPassword(user.email, input.password),
        context,
      ),
    (error: unknown) => ({ ok: false as const, error }),
  )
  if (signedIn.ok) return { status: 'done', setCookies: [...setCookies, ...signedIn.setCookies], location: signedIn.location }
  // The password is changed; a captcha or a failing service keeps this browser from its fresh
  // session: it signs in again like every other device.
  return { status: 'done', setCookies: [...setCookies, clearSessionCookie()], location: null }
}

export type EmailChangeOutcome =
  | { status: 'sent' }
  | { status: 'confirm' }
  | { status: 'error'; httpStatus: number; message: MessageKey }

/**
 * Sends the link that changes the sign-in address to `newEmail` (VERIFY_AND_CHANGE_EMAIL); opening
 * it (/action) makes the change. The answer is the same whether or not that address already has an
 * account (`auth/email-already-in-use` included): only a service that could not be asked is told.
 * Counted in the reset emails' limits, under the new address.
 */
export async function requestEmailChange(
  request: Request,
  user: SessionUser,
  idToken: string,
  newEmail: string,
  context: AppLoadContext,
): Promise<EmailChangeOutcome> {
  const limit = await consumeReset({ ip: context.clientIp, email: newEmail, reqId: context.requestId })
  if (!limit.ok) return { status: 'error', httpStatus: 429, message: 'error.tooManyRequests' }
  try {
    await getIdentity().sendOobCode({ requestType: 'VERIFY_AND_CHANGE_EMAIL', idToken, newEmail, locale: getLocale(request) })
  } catch (error) {
    const code = codeOf(error)
    if (code === 'auth/requires-recent-login') return { status: 'confirm' }
    const { key, status } = outcomeOf(code)
    if (status >= 500) {
      await limit.release('void')
      return { status: 'error', httpStatus: status, message: key }
    }
  }
  await limit.release('success')
  securityEvent('email-change-requested', { reqId: context.requestId, ip: context.clientIp, email: user.email ?? undefined })
  return { status: 'sent' }
}

export type DeleteOutcome =
  | { status: 'done'; setCookies: string[] }
  | { status: 'confirm' }
  | { status: 'mismatch'; httpStatus: 400 }
  | { status: 'error'; httpStatus: number; message: MessageKey | 'deleteAccount.restricted' }

/**
 * Deletes the signed-in account once its address was typed again: token sync hears of it
 * (DELETE), this browser's session ends, and the session, flow and device cookies are cleared.
 * A project that forbids it (`auth/admin-restricted-operation`) is said so plainly.
 */
export async function deleteOwnAccount(
  request: Request,
  user: SessionUser & { email: string },
  idToken: string,
  typed: string,
  context: AppLoadContext,
): Promise<DeleteOutcome> {
  if (typed.trim().toLowerCase() !== user.email.toLowerCase()) return { status: 'mismatch', httpStatus: 400 }
  const limit = await consumeNewPassword({ ip: context.clientIp, reqId: context.requestId })
  if (!limit.ok) return { status: 'error', httpStatus: 429, message: 'error.tooManyRequests' }
  try {
    await getIdentity().deleteAccount(idToken)
  } catch (error) {
    const code = codeOf(error)
    if (code === 'auth/requires-recent-login') return { status: 'confirm' }
    const { key, status } = outcomeOf(code)
    if (status >= 500) await limit.release('void')
    if (code === 'auth/admin-restricted-operation') return { status: 'error', httpStatus: status, message: 'deleteAccount.restricted' }
    return { status: 'error', httpStatus: status, message: key }
  }
  await limit.release('success')
  securityEvent('account-deleted', { reqId: context.requestId, ip: context.clientIp, email: user.email })
  await endThisSession(request).catch(() => undefined)
  await syncToken(null)
  return { status: 'done', setCookies: [...logoutCookies(), clearCookie(COOKIES.device)] }
}
