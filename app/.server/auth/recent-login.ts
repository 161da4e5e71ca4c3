import type { PortalContext } from '~/.server/context'
import { redirectTo, type Redirect } from '~/.server/result'
import { keepRecentSignIn, type SessionUser } from './session'
import type { MfaError, SsoError } from './sign-in-page'
import { sendVerificationEmail } from './verification'

/** The fresh ID token stays sealed in the session record; it never reaches a page, a URL or a log (see ADR 036). */

export interface AfterConfirmation {
  next: string
  then: ConfirmThen | null
}
export type ConfirmThen = 'verify'
export const confirmThenOf = (value: string | null): ConfirmThen | null => (value === 'verify' ? value : null)

export async function afterConfirmation(
  request: Request,
  user: Pick<SessionUser, 'uid' | 'email'>,
  idToken: string,
  after: AfterConfirmation,
  context: Pick<PortalContext, 'clientIp' | 'requestId'>,
): Promise<{ setCookies: string[]; location: string } | null> {
  if (!(await keepRecentSignIn(request, user, idToken))) return null
  if (after.then !== 'verify') return { setCookies: [], location: after.next }
  const { location, cookies } = await sendVerificationEmail(request, user, idToken, context)
  return { setCookies: cookies, location }
}

export type ConfirmReason = { mfaError: MfaError } | { ssoError: SsoError | 'mismatch' }

export function confirmPageWith(after: AfterConfirmation, reason?: ConfirmReason): string {
  const params = new URLSearchParams({ next: after.next })
  if (after.then) params.set('then', after.then)
  for (const [param, value] of Object.entries(reason ?? {})) params.set(param, value)
  return `/account/confirm?${params}`
}

export const confirmStep = (next: string, then: ConfirmThen | null = null): Redirect =>
  redirectTo(confirmPageWith({ next, then }))
