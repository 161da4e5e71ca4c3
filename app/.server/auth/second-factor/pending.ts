import { z } from 'zod'
import { COOKIES } from '~/.server/cookies'
import type { SecondFactor } from '~/.server/identity'
import { recordSecondFactor, type SecondFactorOutcome } from '~/.server/ops/metrics'
import type { AfterConfirmation } from '../recent-login'
import type { SignInMethod } from '../finish-sign-in'
import { flowCookie } from '../flow-state'

/**
 * The pending sign-in of the second-factor step (ADR 022): the first factor's pending credential,
 * the SMS session and the chosen factor, in a sealed, short-lived cookie bound to this browser
 * (ADR 017). They live only there: never in a page, a URL or a log line.
 */

export const SECOND_FACTOR_PATH = '/second-factor'
/** As long as the identity service keeps a pending credential usable, about 10 minutes. */
export const PENDING_MAX_AGE = COOKIES.mfaPending.maxAge
/** Seconds between two SMS codes for one pending sign-in ('Resend code'). */
export const RESEND_COOLDOWN = 30

/** A message shown on the step when it is next displayed (after a redirect). */
const NOTICES = ['mfa.resent', 'mfa.sendFailed', 'error.tooManyRequests', 'mfa.smsLimitedAt', 'mfa.resendWait', 'mfa.checkFailed'] as const
export type Notice = (typeof NOTICES)[number]

export interface Pending {
  /** Random: the key of this pending sign-in's rate limits. */
  id: string
  credential: string
  factors: SecondFactor[]
  method: SignInMethod
  email: string | null
  /** The redirect the first factor carried, already accepted by the redirect policy. */
  redirect: string | null
  /** "Keep me signed in", as chosen on the sign-in form (ADR 037). */
  remember: boolean
  /**
   * Set when the step is "Confirm it's you" for the signed-in account `uid` (ADR 036): it ends by
   * sealing the fresh token for this browser, doing `then` and going back to `next`, an account
   * page; no session is made.
   */
  confirm: Confirming | null
  chosen: string | null
  /** The SMS session of the chosen phone, once a code was sent. */
  session: string | null
  /** When the last SMS code was sent, in seconds since the epoch. */
  sentAt: number | null
  /** The SMS start asked for a reCAPTCHA token (the page then gets the script: captchaSettings). */
  captcha: boolean
  notice: Notice | null
  /** With the notice of an SMS limit: when a code may be asked for again, in milliseconds since the epoch. */
  retryAt: number | null
  /** When the pending sign-in ends, in seconds since the epoch. */
  expires: number
}

export interface Confirming extends AfterConfirmation {
  uid: string
}

/** The current time in whole seconds since the epoch: the unit of `sentAt`, `expires` and the enrolment cookie's dates. */
export const epochSecondsNow = () => Math.floor(Date.now() / 1000)

/** A confirmation kept in a flow cookie (this one, or single sign-on's state). */
export const ConfirmingSchema = z.object({ uid: z.string(), next: z.string(), then: z.literal('verify').nullable() })

const FactorSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('phone'), id: z.string(), displayName: z.string().nullable(), phone: z.string() }),
  z.object({ kind: z.literal('totp'), id: z.string(), displayName: z.string().nullable() }),
])

const PendingSchema = z.object({
  id: z.string(),
  credential: z.string(),
  factors: z.array(FactorSchema).min(1),
  method: z.enum(['password', 'email-link', 'sso', 'passkey']),
  email: z.string().nullable(),
  redirect: z.string().nullable(),
  remember: z.boolean(),
  confirm: ConfirmingSchema.nullable(),
  chosen: z.string().nullable(),
  session: z.string().nullable(),
  sentAt: z.number().nullable(),
  captcha: z.boolean(),
  notice: z.enum(NOTICES).nullable(),
  retryAt: z.number().nullable().default(null),
  expires: z.number(),
})

/**
 * Sealed again after every change, but never past the first factor's time plus PENDING_MAX_AGE:
 * choosing, resending or reading a notice does not lengthen the pending sign-in.
 */
export const pendingCookie = flowCookie<Pending>(COOKIES.mfaPending, PendingSchema, { until: (p) => p.expires })

/** For the second-factor page. */

/**
 * What names the account in its second-factor limits (hashed there): its address, or, when the
 * provider gave none, its factors' enrollment ids, which belong to that account alone.
 */
export function accountOf(p: Pending): string {
  const ids = p.factors.map((f) => f.id).sort()
  return p.email ?? `factors:${ids.join(',')}`
}

export const chosenFactor = (p: Pending) => p.factors.find((f) => f.id === p.chosen) ?? null
export const factorKind = (p: Pending) => chosenFactor(p)?.kind ?? 'none'

/** Counts a step of the second factor in the metrics, by the kind of factor chosen. */
export function recordOutcome(p: Pending, outcome: SecondFactorOutcome) {
  recordSecondFactor(factorKind(p), outcome)
}
