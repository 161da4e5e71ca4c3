import { z } from 'zod'
import { COOKIES } from '~/.server/cookies'
import { limitMessage } from '~/lib/limits'
import { flowCookie } from './flow-state'
import { epochSecondsNow, resendIn } from './second-factor/pending'

/**
 * The reset email this browser just asked for: the address as typed and when (ADR 075). The page
 * that says it went shows the address back, and "Send the email again" once the wait of a resent
 * SMS code is over. Kept in this browser alone: it says nothing about the account, which may not exist.
 */
const SentSchema = z.object({ email: z.string().min(1), sentAt: z.number().int() })
const sentCookie = flowCookie(COOKIES.emailSent, SentSchema)

export interface SentView {
  /** As typed; null when this browser did not ask (an old tab, another browser). */
  address: string | null
  resendIn: number
  sentAt: number | null
}

export function sentView(request: Request): SentView {
  const sent = sentCookie.read(request)
  if (!sent) return { address: null, resendIn: 0, sentAt: null }
  return { address: sent.email, resendIn: resendIn(sent.sentAt), sentAt: sent.sentAt }
}

/** The Set-Cookie values of an email asked for now. */
export const rememberSent = (request: Request, email: string) => sentCookie.write(request, { email, sentAt: epochSecondsNow() })

/**
 * "Send the email again": the address this browser asked for, or, within the wait, when it may
 * (the limits' own message); null when there is nothing to send again.
 */
export function resendable(request: Request): { email: string } | { retryAt: number } | null {
  const sent = sentCookie.read(request)
  if (!sent) return null
  const left = resendIn(sent.sentAt)
  return left > 0 ? limitMessage(left) : { email: sent.email }
}
