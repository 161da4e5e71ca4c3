import { z } from 'zod'
import { COOKIES } from '~/.server/cookies'
import { limitMessage } from '~/lib/limits'
import { flowCookie } from './flow-state'
import { epochSecondsNow, resendIn } from './second-factor/pending'

/**
 * The email this browser just asked for: which one, the address as typed and when (ADRs 075, 083).
 * The page that says it went shows the address back, and "Send … again" once the wait of a resent
 * SMS code is over. Kept in this browser alone: it says nothing about the account, which may not exist.
 * One cookie for every such email: a page reads only its own kind, so the last one asked for wins.
 */
const KINDS = ['reset', 'sign-in-link', 'sign-up', 'verify', 'email-change'] as const
export type SentKind = (typeof KINDS)[number]
const SentSchema = z.object({ email: z.string().min(1), sentAt: z.number().int(), kind: z.enum(KINDS).default('reset') })
const sentCookie = flowCookie(COOKIES.emailSent, SentSchema)

const read = (request: Request, kind: SentKind) => {
  const sent = sentCookie.read(request)
  return sent?.kind === kind ? sent : null
}

/** The address as typed (null when this browser did not ask: an old tab, another browser), the wait, when it went. */
export function sentView(request: Request, kind: SentKind = 'reset') {
  const sent = read(request, kind)
  if (!sent) return { address: null, resendIn: 0, sentAt: null }
  return { address: sent.email, resendIn: resendIn(sent.sentAt), sentAt: sent.sentAt }
}

/** The Set-Cookie values of an email asked for now. */
export const rememberSent = (request: Request, email: string, kind: SentKind = 'reset') =>
  sentCookie.write(request, { email, sentAt: epochSecondsNow(), kind })

/**
 * "Send … again": the address this browser asked for, or, within the wait, when it may
 * (the limits' own message); null when there is nothing to send again.
 */
export function resendable(request: Request, kind: SentKind = 'reset'): { email: string } | { retryAt: number } | null {
  const sent = read(request, kind)
  if (!sent) return null
  const left = resendIn(sent.sentAt)
  return left > 0 ? limitMessage(left) : { email: sent.email }
}
