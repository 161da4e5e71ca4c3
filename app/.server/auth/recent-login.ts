import type { PortalContext } from '~/.server/context'
import { z } from 'zod'
import { COOKIES } from '~/.server/cookies'
import { redirectTo, type Redirect } from '~/.server/result'
import { isRecentSignIn, tokenClaims, type SessionUser } from './session'
import { flowCookie } from './flow-state'
import type { MfaError, SsoError } from './sign-in-page'
import { accountPageAfterVerification, sendVerificationEmail } from './verification'

/**
 * "Confirm it's you" (ADR 036): changing the password or the address, a second factor, deleting
 * the account need a sign-in less than 5 minutes old, as Identity Platform itself demands. The
 * signed-in visitor types the password again; the fresh ID token that answers is kept in this
 * browser only, sealed to it (ADR 017) and encrypted, for at most 5 minutes. It never reaches a
 * page, a URL or a log: the account actions read it back here, on the server.
 */

export const recentLoginCookie = flowCookie(COOKIES.recentLogin, z.string().min(1))

/**
 * Where a confirmation leads: back to `next` (an account page), after doing what the visitor had
 * asked for when it was needed (`then`): an action whose button was pressed before the step
 * completes after it, without a second press.
 */
export interface AfterConfirmation {
  next: string
  then: ConfirmThen | null
}
/** The actions that finish after "Confirm it's you": 'verify' sends the verification email. */
export type ConfirmThen = 'verify'
export const confirmThenOf = (value: string | null): ConfirmThen | null => (value === 'verify' ? value : null)

/**
 * The end of every confirmation (the password in ./confirm-password, or the second-factor step): the token sealed
 * for this browser, what was asked for before it done, and where to go. Null when the token is not
 * from a sign-in of this account in the last 5 minutes.
 */
export async function afterConfirmation(
  request: Request,
  user: Pick<SessionUser, 'uid' | 'email'>,
  idToken: string,
  after: AfterConfirmation,
  context: Pick<PortalContext, 'clientIp' | 'requestId'>,
): Promise<{ setCookies: string[]; location: string } | null> {
  const setCookies = sealRecentLogin(request, user, idToken)
  if (!setCookies) return null
  if (after.then !== 'verify') return { setCookies, location: after.next }
  const sent = await sendVerificationEmail(request, user, idToken, context)
  return { setCookies, location: accountPageAfterVerification(sent) }
}

/**
 * Why a confirmation came back to its page: its second-factor step ended (`mfaError`), or the
 * provider's round trip did not confirm (`ssoError`; `mismatch`: another account came back).
 */
export type ConfirmReason = { mfaError: MfaError } | { ssoError: SsoError | 'mismatch' }

/** The "Confirm it's you" page that returns to `next` (and then does `then`), saying why it is shown again. */
export function confirmPageWith(after: AfterConfirmation, reason?: ConfirmReason): string {
  const params = new URLSearchParams({ next: after.next })
  if (after.then) params.set('then', after.then)
  for (const [param, value] of Object.entries(reason ?? {})) params.set(param, value)
  return `/account/confirm?${params}`
}

/** An account change that needs a fresher sign-in: "Confirm it's you" first, then back to `next`, doing `then` on the way. */
export const confirmStep = (next: string, then: ConfirmThen | null = null): Redirect =>
  redirectTo(confirmPageWith({ next, then }))

/**
 * The Set-Cookie values that keep `idToken` for this browser, or null when the token is not from
 * a sign-in of this account in the last 5 minutes. For a token the second-factor step minted too.
 */
export function sealRecentLogin(request: Request, user: Pick<SessionUser, 'uid'>, idToken: string): string[] | null {
  const { uid, authTime } = tokenClaims(idToken)
  if (uid !== user.uid || !isRecentSignIn(authTime)) return null
  return recentLoginCookie.write(request, idToken)
}

/**
 * The fresh ID token this browser confirmed for this account, or null: none, older than 5
 * minutes, sealed in another browser or for another account, or altered.
 */
export function readRecentLogin(request: Request, user: SessionUser): string | null {
  const idToken = recentLoginCookie.read(request)
  if (!idToken) return null
  const { uid, authTime } = tokenClaims(idToken)
  return uid === user.uid && isRecentSignIn(authTime) ? idToken : null
}
