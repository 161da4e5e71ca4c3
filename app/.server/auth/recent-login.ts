import type { PortalContext } from '~/.server/context'
import { redirectTo, type Redirect } from '~/.server/result'
import { keepRecentSignIn, type SessionUser } from './session'
import type { MfaError, SsoError } from './sign-in-page'
import { accountPageAfterVerification, sendVerificationEmail } from './verification'

/**
 * "Confirm it's you" (ADR 036): changing the password or the address, a second factor, deleting
 * the account need a sign-in less than 5 minutes old, as Identity Platform itself demands. The
 * sign-in itself counts; after 5 minutes the signed-in visitor types the password again. The fresh
 * ID token is kept in this browser's session record, sealed (ADR 063). It never reaches a page, a
 * URL or a log: the account actions read it back on the server.
 */

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
  if (!(await keepRecentSignIn(request, user, idToken))) return null
  if (after.then !== 'verify') return { setCookies: [], location: after.next }
  const sent = await sendVerificationEmail(request, user, idToken, context)
  return { setCookies: [], location: accountPageAfterVerification(sent) }
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
