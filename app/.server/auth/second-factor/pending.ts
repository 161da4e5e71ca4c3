import { z } from 'zod'
import { getConfig } from '~/.server/config'
import { COOKIES } from '~/.server/cookies'
import { metrics, type SecondFactorOutcome } from '~/.server/ops/metrics'
import { flowCookie } from '../flow-state'

/** The pending credential and SMS session live only in this cookie, never in a page, URL or log (see ADR 022). */

export const SECOND_FACTOR_PATH = '/second-factor'
export const PENDING_MAX_AGE = COOKIES.mfaPending.maxAge
/** Seconds until a code (or an email) sent at `sentAt` may be sent again (RESEND_WAIT_SECONDS); 0 once it may. */
export const resendIn = (sentAt: number) => Math.max(0, sentAt + getConfig().resendWaitSeconds - epochSecondsNow())

const NOTICES = ['mfa.resent', 'mfa.sendFailed', 'error.tooManyRequests', 'mfa.smsLimitedAt', 'mfa.resendWait', 'mfa.checkFailed'] as const
export type Notice = (typeof NOTICES)[number]

export const epochSecondsNow = () => Math.floor(Date.now() / 1000)

export const ConfirmingSchema = z.object({ uid: z.string(), next: z.string(), then: z.literal('verify').nullable() })
/** "Confirm it's you" under way: the account, and what it goes on to once confirmed. */
export type Confirming = z.output<typeof ConfirmingSchema>

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
export type Pending = z.output<typeof PendingSchema>

// Never past the first factor's time plus PENDING_MAX_AGE: choosing, resending or reading a notice does not extend it.
export const pendingCookie = flowCookie<Pending>(COOKIES.mfaPending, PendingSchema, { until: (p) => p.expires })

/** Without an address, the factors' enrollment ids name the account: they belong to it alone. */
export function accountOf(p: Pending): string {
  const ids = p.factors.map((f) => f.id).sort()
  return p.email ?? `factors:${ids.join(',')}`
}

export const chosenFactor = (p: Pending) => p.factors.find((f) => f.id === p.chosen) ?? null
export const factorKind = (p: Pending) => chosenFactor(p)?.kind ?? 'none'

export function recordOutcome(p: Pending, outcome: SecondFactorOutcome) {
  metrics.secondFactor.inc({ factor: factorKind(p), outcome })
}
