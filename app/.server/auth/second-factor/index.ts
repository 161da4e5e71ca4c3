import { randomBytes } from 'node:crypto'
import type { AppLoadContext } from '~/.server/context'
import type { CaptchaSettings } from '~/lib/recaptcha'
import type { MfaRequired, SecondFactor } from '~/.server/identity'
import { securityEvent } from '~/.server/ops/security-events'
import { captchaSettings } from '~/.server/policy/recaptcha'
import type { CheckedRedirect } from '~/.server/policy/redirect'
import { page, redirectTo, type Redirect, type Result } from '~/.server/result'
import { signInLink } from '~/lib/sign-in-link'
import type { SignInMethod } from '../finish-sign-in'
import {
  PENDING_MAX_AGE,
  RESEND_COOLDOWN,
  SECOND_FACTOR_PATH,
  chosenFactor,
  epochSecondsNow,
  pendingCookie,
  recordOutcome,
  type Confirming,
  type Notice,
  type Pending,
} from './pending'
import { sendSms } from './sms'
import { verify, type StepPage } from './verify'

/**
 * The second factor at sign-in (ADR 022). When a first factor (password, email link,
 * single sign-on) answers with a pending credential instead of tokens, no session is made: the
 * pending sign-in goes into a sealed, short-lived cookie bound to this browser (./pending), and the
 * visitor goes to /second-factor. There they choose a factor (when there are several), receive
 * an SMS code (./sms) or read their authenticator app, and the code completes the sign-in through
 * mfaSignIn:finalize and the same signInWithIdToken as every other sign-in (./verify).
 */

export type { StepMessage, StepPage } from './verify'

/**
 * The first factor answered with a pending credential: the step begins. One factor is chosen at
 * once (an SMS code is sent at once); several go to the chooser. Answers the cookies to set and
 * where to go. With `confirm`, the step is "Confirm it's you" for the signed-in account (ADR 036):
 * the same step, but its code seals a fresh token for this browser instead of making a session.
 */
export async function beginSecondFactor(
  request: Request,
  input: {
    mfa: MfaRequired
    method: SignInMethod
    email: string | null
    redirect: CheckedRedirect | null
    remember: boolean
    confirm?: Confirming
  },
  context: AppLoadContext,
): Promise<{ setCookies: string[]; location: string }> {
  const factors = input.mfa.factors
  const pending: Pending = {
    id: randomBytes(16).toString('base64url'),
    credential: input.mfa.pendingCredential,
    factors,
    method: input.method,
    email: input.email,
    // Sealed as it was given: read back, it is checked again where it comes in (./verify).
    redirect: input.redirect?.param ?? null,
    remember: input.remember,
    confirm: input.confirm ?? null,
    chosen: factors.length === 1 ? factors[0]!.id : null,
    session: null,
    sentAt: null,
    captcha: false,
    notice: null,
    retryAt: null,
    expires: epochSecondsNow() + PENDING_MAX_AGE,
  }
  securityEvent('second-factor-required', {
    reqId: context.requestId,
    ip: context.clientIp,
    email: input.email ?? undefined,
    method: input.method,
    factors: factors.map((f) => f.kind),
  })
  recordOutcome(pending, 'required')
  await sendSms(pending, context)
  return { setCookies: pendingCookie.write(request, pending), location: SECOND_FACTOR_PATH }
}

/**
 * What the step shows: never the credential or the SMS session. `confirming`: the step is
 * "Confirm it's you", whose way back is the account, not the sign-in page.
 */
export type SecondFactorView =
  | { step: 'choose'; factors: SecondFactor[]; redirect: string | null; back: string; confirming: boolean; notice: Notice | null }
  | {
      step: 'code'
      factor: SecondFactor
      /** An SMS code went to the phone. */
      sent: boolean
      /** The SMS start demands a reCAPTCHA token: what the page needs to get one (ADR 020). */
      captcha: CaptchaSettings | null
      /** Seconds before 'Resend code' sends again. */
      resendIn: number
      /** When the last code was sent, in seconds since the epoch. */
      sentAt: number | null
      /** With an SMS limit's notice: when a code may be asked for again (milliseconds since the epoch). */
      retryAt: number | null
      several: boolean
      redirect: string | null
      /** The way back: the account for "Confirm it's you"; else sign-in, its redirect and the address already given kept. */
      back: string
      confirming: boolean
      notice: Notice | null
    }

/** No pending sign-in (gone, expired, another browser's): back to sign in, with the reason. */
const expired = (status?: 302): Redirect =>
  redirectTo(signInLink(null, { mfaError: 'expired' }), { status, cookies: [pendingCookie.clear()] })

/** GET /second-factor: the step, or back to sign in when there is no pending sign-in. */
export function secondFactorView(request: Request): Result<{ view: SecondFactorView }> {
  const p = pendingCookie.read(request)
  if (!p) return expired(302)
  // A notice is shown once.
  const cookies = p.notice ? pendingCookie.write(request, { ...p, notice: null, retryAt: null }) : []
  const factor = chosenFactor(p)
  const confirming = p.confirm !== null
  const back = confirming ? '/account' : signInLink(p.redirect, p.email ? { email: p.email } : {})
  if (!factor)
    return page(
      { view: { step: 'choose', factors: p.factors, redirect: p.redirect, back, confirming, notice: p.notice } },
      { cookies },
    )
  return page(
    {
      view: {
        step: 'code',
        factor,
        sent: factor.kind === 'phone' && p.session !== null,
        captcha: factor.kind === 'phone' && !p.session && p.captcha ? captchaSettings('mfaSmsSignIn') : null,
        resendIn: p.sentAt === null ? 0 : Math.max(0, p.sentAt + RESEND_COOLDOWN - epochSecondsNow()),
        sentAt: p.sentAt,
        retryAt: p.notice === 'mfa.smsLimitedAt' ? p.retryAt : null,
        several: p.factors.length > 1,
        redirect: p.redirect,
        back,
        confirming,
        notice: p.notice,
      },
    },
    { cookies },
  )
}

/** POST /second-factor, after the CSRF check: choose, another method, resend, or verify a code. */
export async function secondFactorAction(
  request: Request,
  form: { intent: string; factor: string; code: string; captchaResponse: string },
  context: AppLoadContext,
): Promise<Result<StepPage>> {
  const p = pendingCookie.read(request)
  if (!p) return expired()
  const back = (pending: Pending) => redirectTo(SECOND_FACTOR_PATH, { cookies: pendingCookie.write(request, pending) })

  switch (form.intent) {
    case 'choose': {
      if (!p.factors.some((f) => f.id === form.factor)) return back({ ...p, chosen: null, session: null })
      const next: Pending = { ...p, chosen: form.factor, session: null, captcha: false, notice: null }
      await sendSms(next, context)
      return back(next)
    }
    case 'another':
      return back({ ...p, chosen: null, session: null, captcha: false, notice: null })
    case 'resend': {
      if (chosenFactor(p)?.kind !== 'phone') return back(p)
      if (p.sentAt !== null && epochSecondsNow() < p.sentAt + RESEND_COOLDOWN) return back({ ...p, notice: 'mfa.resendWait' })
      const next: Pending = { ...p, notice: null }
      await sendSms(next, context, p.captcha ? form.captchaResponse : form.captchaResponse || undefined)
      if (next.sentAt !== p.sentAt && p.sentAt !== null) next.notice = 'mfa.resent'
      return back(next)
    }
    default:
      return verify(request, p, form.code, context)
  }
}
