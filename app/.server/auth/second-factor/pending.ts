import { COOKIES, clearCookie } from '~/.server/cookies'
import type { SecondFactor } from '~/.server/identity'
import { recordSecondFactor, type SecondFactorOutcome } from '~/.server/ops/metrics'
import { openForBrowser, sealForBrowser } from '~/.server/policy/csrf'
import { confirmThenOf, type AfterConfirmation } from '../recent-login'
import type { SignInMethod } from '../finish-sign-in'

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

const PENDING_COOKIE = COOKIES.mfaPending

/** A message shown on the step when it is next displayed (after a redirect). */
const NOTICES = ['mfa.resent', 'mfa.sendFailed', 'error.tooManyRequests', 'mfa.resendWait'] as const
export type Notice = (typeof NOTICES)[number]
const isNotice = (value: unknown): value is Notice => (NOTICES as readonly unknown[]).includes(value)

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
  /** When the pending sign-in ends, in seconds since the epoch. */
  expires: number
}

export interface Confirming extends AfterConfirmation {
  uid: string
}

export const now = () => Math.floor(Date.now() / 1000)

/**
 * Sealed again after every change, but never past the first factor's time plus PENDING_MAX_AGE:
 * choosing, resending or reading a notice does not lengthen the pending sign-in.
 */
export function seal(request: Request, pending: Pending): string[] {
  const remaining = Math.max(1, pending.expires - now())
  return sealForBrowser(request, { ...PENDING_COOKIE, maxAge: remaining }, JSON.stringify(pending))
}

export function clearPendingCookie(): string {
  return clearCookie(PENDING_COOKIE)
}

const isString = (value: unknown): value is string => typeof value === 'string'
const orNull = (value: unknown) => (isString(value) ? value : null)
/** A confirmation read back from a sealed cookie (this one, or single sign-on's state), or null. */
export function confirmingOf(value: unknown): Confirming | null {
  if (typeof value !== 'object' || value === null) return null
  const { uid, next, then } = value as Record<string, unknown>
  return isString(uid) && isString(next) ? { uid, next, then: confirmThenOf(orNull(then)) } : null
}

export function readPending(request: Request): Pending | null {
  const value = openForBrowser(request, PENDING_COOKIE)
  if (!value) return null
  try {
    const p = JSON.parse(value) as Partial<Pending>
    if (!isString(p.id) || !isString(p.credential) || !Array.isArray(p.factors) || p.factors.length === 0) return null
    if (p.method !== 'password' && p.method !== 'email-link' && p.method !== 'sso') return null
    if (typeof p.expires !== 'number' || p.expires <= now()) return null
    const chosen = p.factors.some((f) => f.id === p.chosen) ? (p.chosen as string) : null
    return {
      id: p.id,
      credential: p.credential,
      factors: p.factors,
      method: p.method,
      email: orNull(p.email),
      redirect: orNull(p.redirect),
      remember: p.remember === true,
      confirm: confirmingOf(p.confirm),
      chosen,
      session: chosen ? orNull(p.session) : null,
      sentAt: typeof p.sentAt === 'number' ? p.sentAt : null,
      captcha: p.captcha === true,
      notice: isNotice(p.notice) ? p.notice : null,
      expires: p.expires,
    }
  } catch {
    return null
  }
}

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

export function record(p: Pending, outcome: SecondFactorOutcome) {
  recordSecondFactor(factorKind(p), outcome)
}
