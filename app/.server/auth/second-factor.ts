import { randomBytes } from 'node:crypto'
import type { AppLoadContext } from '@remix-run/node'
import { getConfig } from '~/.server/config'
import { clearCookie, type SealedCookie } from '~/.server/cookies'
import { openForBrowser, sealForBrowser } from '~/.server/policy/csrf'
import {
  getIdentity,
  codeOf,
  messageKeyFor,
  type AuthCode,
  type MessageKey,
  type MfaRequired,
  type SecondFactor,
} from '~/.server/identity'
import { recordSecondFactor, type SecondFactorOutcome } from '~/.server/ops/metrics'
import { securityEvent } from '~/.server/ops/security-events'
import { consumeMfaCode, consumeMfaSms } from '~/.server/policy/rate-limit'
import { signInWithIdToken, type SignInMethod } from './sign-in'

/**
 * The second factor at sign-in (issue 15, ADR 022). When a first factor (password, email link,
 * single sign-on) answers with a pending credential instead of tokens, no session is made: the
 * pending sign-in goes into a sealed, short-lived cookie bound to this browser (ADR 017), and the
 * visitor goes to /second-factor. There they choose a factor (when there are several), receive
 * an SMS code or read their authenticator app, and the code completes the sign-in through
 * mfaSignIn:finalize and the same signInWithIdToken as every other sign-in.
 *
 * The pending credential, the SMS session and the chosen factor live only in that cookie: never
 * in a page, a URL or a log line.
 */

export const SECOND_FACTOR_PATH = '/second-factor'
/** As long as the identity service keeps a pending credential usable, about 10 minutes. */
export const PENDING_MAX_AGE = 10 * 60
/** Seconds between two SMS codes for one pending sign-in ('Resend code'). */
export const RESEND_COOLDOWN = 30

const PENDING_COOKIE: SealedCookie = { name: 'mfa_pending', purpose: 'mfa-pending', maxAge: PENDING_MAX_AGE }

/** Where the sign-in page explains why the step ended: `/?mfaError=<reason>`. */
export const MFA_ERRORS = {
  expired: 'mfa.expired',
  invalid: 'mfa.sessionInvalid',
} as const
export type MfaError = keyof typeof MFA_ERRORS

/** The message for the sign-in page's `mfaError` parameter; anything else shows nothing. */
export function mfaErrorKey(value: string | null): (typeof MFA_ERRORS)[MfaError] | null {
  return value !== null && Object.hasOwn(MFA_ERRORS, value) ? MFA_ERRORS[value as MfaError] : null
}

/** A message shown on the step when it is next displayed (after a redirect). */
type Notice = 'mfa.resent' | 'mfa.sendFailed' | 'error.tooManyRequests' | 'mfa.resendWait'

interface Pending {
  /** Random: the key of this pending sign-in's rate limits. */
  id: string
  credential: string
  factors: SecondFactor[]
  method: SignInMethod
  email: string | null
  /** The redirect the first factor carried, already accepted by the redirect policy. */
  redirect: string | null
  chosen: string | null
  /** The SMS session of the chosen phone, once a code was sent. */
  session: string | null
  /** When the last SMS code was sent, in seconds since the epoch. */
  sentAt: number | null
  /** The reCAPTCHA Enterprise site key, when the SMS start asked for a captcha. */
  captcha: string | null
  notice: Notice | null
  /** When the pending sign-in ends, in seconds since the epoch. */
  expires: number
}

/**
 * Sealed again after every change, but never past the first factor's time plus PENDING_MAX_AGE:
 * choosing, resending or reading a notice does not lengthen the pending sign-in.
 */
function seal(request: Request, pending: Pending): string[] {
  const remaining = Math.max(1, pending.expires - now())
  return sealForBrowser(request, { ...PENDING_COOKIE, maxAge: remaining }, JSON.stringify(pending))
}

export function clearPendingCookie(): string {
  return clearCookie(PENDING_COOKIE)
}

const isString = (value: unknown): value is string => typeof value === 'string'
const orNull = (value: unknown) => (isString(value) ? value : null)

function readPending(request: Request): Pending | null {
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
      chosen,
      session: chosen ? orNull(p.session) : null,
      sentAt: typeof p.sentAt === 'number' ? p.sentAt : null,
      captcha: orNull(p.captcha),
      notice: orNull(p.notice) as Notice | null,
      expires: p.expires,
    }
  } catch {
    return null
  }
}

const chosenFactor = (p: Pending) => p.factors.find((f) => f.id === p.chosen) ?? null
const factorKind = (p: Pending) => chosenFactor(p)?.kind ?? 'none'
const now = () => Math.floor(Date.now() / 1000)

function record(p: Pending, outcome: SecondFactorOutcome) {
  recordSecondFactor(factorKind(p), outcome)
}

/** The sign-in page, with a message, keeping the redirect. */
export function signInPageWithMfaError(error: MfaError, redirect: string | null): string {
  const params = new URLSearchParams({ mfaError: error })
  if (redirect) params.set('redirect', redirect)
  return `/?${params}`
}

const CAPTCHA_CODES: ReadonlySet<AuthCode> = new Set([
  'auth/missing-recaptcha-token',
  'auth/invalid-recaptcha-token',
  'auth/invalid-recaptcha-action',
])

/**
 * Sends an SMS code to the chosen phone (mfaSignIn:start), after taking the SMS limits. The
 * pending sign-in is updated in place: its new session, or why no code went.
 */
async function sendSms(p: Pending, context: AppLoadContext, captchaResponse?: string): Promise<void> {
  const factor = chosenFactor(p)
  if (factor?.kind !== 'phone') return
  const limit = await consumeMfaSms({ ip: context.clientIp, pending: p.id, reqId: context.requestId })
  if (!limit.ok) {
    p.notice = 'error.tooManyRequests'
    record(p, 'limited')
    return
  }
  try {
    const { sessionInfo } = await getIdentity().startMfaSignIn({
      pendingCredential: p.credential,
      enrollmentId: factor.id,
      captchaResponse,
    })
    await limit.release('failure') // a code was sent: it counts
    p.session = sessionInfo
    p.sentAt = now()
    p.captcha = null
    record(p, 'sent')
  } catch (error) {
    await limit.release('void')
    const code: AuthCode = codeOf(error)
    if (CAPTCHA_CODES.has(code)) {
      const siteKey = await captchaSiteKey()
      p.captcha = siteKey
      p.notice = siteKey ? null : 'mfa.sendFailed'
      record(p, 'captcha')
      return
    }
    p.notice = code === 'auth/too-many-requests' ? 'error.tooManyRequests' : 'mfa.sendFailed'
    record(p, 'error')
  }
}

async function captchaSiteKey(): Promise<string | null> {
  try {
    return (await getIdentity().getRecaptchaConfig()).siteKey
  } catch {
    return null
  }
}

/**
 * The first factor answered with a pending credential: the step begins. One factor is chosen at
 * once (an SMS code is sent at once); several go to the chooser. Answers the cookies to set and
 * where to go.
 */
export async function beginSecondFactor(
  request: Request,
  input: { mfa: MfaRequired; method: SignInMethod; email: string | null; redirect: string | null },
  context: AppLoadContext,
): Promise<{ setCookies: string[]; location: string }> {
  const factors = input.mfa.factors
  const pending: Pending = {
    id: randomBytes(16).toString('base64url'),
    credential: input.mfa.pendingCredential,
    factors,
    method: input.method,
    email: input.email,
    redirect: input.redirect,
    chosen: factors.length === 1 ? factors[0]!.id : null,
    session: null,
    sentAt: null,
    captcha: null,
    notice: null,
    expires: now() + PENDING_MAX_AGE,
  }
  securityEvent('second-factor-required', {
    reqId: context.requestId,
    ip: context.clientIp,
    email: input.email ?? undefined,
    method: input.method,
    factors: factors.map((f) => f.kind),
  })
  record(pending, 'required')
  await sendSms(pending, context)
  return { setCookies: seal(request, pending), location: SECOND_FACTOR_PATH }
}

/** What the step shows: never the credential or the SMS session. */
export type SecondFactorView =
  | { step: 'choose'; factors: SecondFactor[]; redirect: string | null; notice: Notice | null }
  | {
      step: 'code'
      factor: SecondFactor
      /** An SMS code went to the phone. */
      sent: boolean
      captchaSiteKey: string | null
      /** RECAPTCHA_SCRIPT_URL, where the page loads reCAPTCHA Enterprise from (ADR 020). */
      captchaScriptUrl: string
      /** Seconds before 'Resend code' sends again. */
      resendIn: number
      several: boolean
      redirect: string | null
      notice: Notice | null
    }

/** GET /second-factor: the step, or null when there is no pending sign-in (gone, expired, another browser's). */
export function secondFactorView(request: Request): { view: SecondFactorView; setCookies: string[] } | null {
  const p = readPending(request)
  if (!p) return null
  // A notice is shown once.
  const setCookies = p.notice ? seal(request, { ...p, notice: null }) : []
  const factor = chosenFactor(p)
  if (!factor)
    return { view: { step: 'choose', factors: p.factors, redirect: p.redirect, notice: p.notice }, setCookies }
  return {
    view: {
      step: 'code',
      factor,
      sent: factor.kind === 'phone' && p.session !== null,
      captchaSiteKey: factor.kind === 'phone' && !p.session ? p.captcha : null,
      captchaScriptUrl: getConfig().recaptchaScriptUrl,
      resendIn: p.sentAt === null ? 0 : Math.max(0, p.sentAt + RESEND_COOLDOWN - now()),
      several: p.factors.length > 1,
      redirect: p.redirect,
      notice: p.notice,
    },
    setCookies,
  }
}

export type SecondFactorOutcomeOf =
  /** Go there (303), setting these cookies. */
  | { kind: 'redirect'; location: string; setCookies: string[] }
  /** Stay on the step with this message. */
  | { kind: 'error'; status: number; message: StepMessage; retryAfterSeconds?: number }

/** What the step may say after a submission. */
export type StepMessage = MessageKey | 'mfa.codeFormat' | 'mfa.sendFailed'

/** A code as typed: spaces and dashes some apps show are dropped; six digits remain, or it is refused. */
export function normaliseCode(value: string): string | null {
  const code = value.replace(/[\s-]/g, '')
  return /^\d{6}$/.test(code) ? code : null
}

/** Failures after which the pending sign-in cannot go on: back to the sign-in page. */
function endingFor(code: AuthCode): MfaError | null {
  switch (code) {
    case 'auth/code-expired':
      return 'expired'
    case 'auth/invalid-verification-id':
    case 'auth/missing-verification-id':
    case 'auth/invalid-multi-factor-session':
    case 'auth/missing-multi-factor-session':
    case 'auth/multi-factor-info-not-found':
    case 'auth/missing-multi-factor-info':
    case 'auth/user-disabled':
      return 'invalid'
    default:
      return null
  }
}

/** POST /second-factor, after the CSRF check: choose, another method, resend, or verify a code. */
export async function secondFactorAction(
  request: Request,
  form: { intent: string; factor: string; code: string; captchaResponse: string },
  context: AppLoadContext,
): Promise<SecondFactorOutcomeOf> {
  const p = readPending(request)
  if (!p)
    return { kind: 'redirect', location: signInPageWithMfaError('expired', null), setCookies: [clearPendingCookie()] }
  const back = (pending: Pending): SecondFactorOutcomeOf => ({
    kind: 'redirect',
    location: SECOND_FACTOR_PATH,
    setCookies: seal(request, pending),
  })

  switch (form.intent) {
    case 'choose': {
      if (!p.factors.some((f) => f.id === form.factor)) return back({ ...p, chosen: null, session: null })
      const next: Pending = { ...p, chosen: form.factor, session: null, captcha: null, notice: null }
      await sendSms(next, context)
      return back(next)
    }
    case 'another':
      return back({ ...p, chosen: null, session: null, captcha: null, notice: null })
    case 'resend': {
      if (chosenFactor(p)?.kind !== 'phone') return back(p)
      if (p.sentAt !== null && now() < p.sentAt + RESEND_COOLDOWN) return back({ ...p, notice: 'mfa.resendWait' })
      const next: Pending = { ...p, notice: null }
      await sendSms(next, context, form.captchaResponse || undefined)
      if (next.sentAt !== p.sentAt && p.sentAt !== null) next.notice = 'mfa.resent'
      return back(next)
    }
    default:
      return verify(request, p, form.code, context)
  }
}

async function verify(
  request: Request,
  p: Pending,
  typed: string,
  context: AppLoadContext,
): Promise<SecondFactorOutcomeOf> {
  const factor = chosenFactor(p)
  if (!factor) return { kind: 'redirect', location: SECOND_FACTOR_PATH, setCookies: [] }
  const code = normaliseCode(typed)
  if (!code) return { kind: 'error', status: 400, message: 'mfa.codeFormat' }
  if (factor.kind === 'phone' && !p.session) return { kind: 'error', status: 400, message: 'mfa.sendFailed' }

  // The attempt is counted before the call, atomically, as sign-in attempts are (ADR 015).
  const limit = await consumeMfaCode({
    ip: context.clientIp,
    pending: p.id,
    email: p.email ?? undefined,
    reqId: context.requestId,
  })
  if (!limit.ok) {
    record(p, 'limited')
    return { kind: 'error', status: 429, message: 'error.tooManyRequests', retryAfterSeconds: limit.retryAfterSeconds }
  }
  let errorCode: AuthCode
  try {
    const tokens = await getIdentity().finalizeMfaSignIn(
      p.credential,
      factor.kind === 'phone'
        ? { kind: 'phone', sessionInfo: p.session!, code }
        : { kind: 'totp', enrollmentId: factor.id, code },
    )
    await limit.release('success')
    try {
      const session = await signInWithIdToken(
        tokens.idToken,
        { email: p.email, method: p.method, redirect: p.redirect, secondFactor: factor.kind },
        context,
      )
      record(p, 'success')
      return { kind: 'redirect', location: session.location, setCookies: [...session.setCookies, clearPendingCookie()] }
    } catch {
      // A token the session refuses (too old a sign-in, no second-factor claim): start again.
      record(p, 'expired')
      return end(p, 'expired', 'session-refused', context)
    }
  } catch (error) {
    errorCode = codeOf(error)
  }

  if (errorCode === 'auth/invalid-verification-code' || errorCode === 'auth/missing-verification-code') {
    await limit.release('failure')
    record(p, 'wrong-code')
    failure(p, errorCode, context)
    return { kind: 'error', status: 400, message: 'mfa.wrongCode' }
  }
  const ending = endingFor(errorCode)
  if (ending) {
    await limit.release('failure')
    record(p, ending === 'expired' ? 'expired' : 'invalid')
    return end(p, ending, errorCode, context)
  }
  // The service never judged the code: the point comes back.
  await limit.release('void')
  record(p, 'error')
  const message = messageKeyFor(errorCode)
  return {
    kind: 'error',
    status: message === 'error.tooManyRequests' ? 429 : 503,
    message: message === 'error.tooManyRequests' ? message : 'error.unexpected',
  }
}

function failure(p: Pending, code: string, context: AppLoadContext) {
  securityEvent('second-factor-failure', {
    reqId: context.requestId,
    ip: context.clientIp,
    email: p.email ?? undefined,
    method: p.method,
    secondFactor: factorKind(p),
    code,
  })
}

function end(p: Pending, reason: MfaError, code: string, context: AppLoadContext): SecondFactorOutcomeOf {
  failure(p, code, context)
  return { kind: 'redirect', location: signInPageWithMfaError(reason, p.redirect), setCookies: [clearPendingCookie()] }
}
