import { randomBytes } from 'node:crypto'
import type { AppLoadContext } from '~/.server/context'
import type { CaptchaSettings } from '~/lib/recaptcha'
import type { MfaRequired, SecondFactor } from '~/.server/identity'
import { securityEvent } from '~/.server/ops/logger'
import { captchaSettings } from '~/.server/identity/recaptcha'
import type { CheckedRedirect } from '~/.server/policy/redirect'
import { page, redirectTo, type Redirect, type Result } from '~/.server/result'
import { signInLink } from '~/lib/sign-in-link'
import { whoOf } from '../session'
import type { SignInMethod } from '../session-store'
import {
  PENDING_MAX_AGE,
  resendIn,
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

// A pending second-factor sign-in lives only in a sealed cookie bound to this
// browser (./pending); no session is made until the code is verified (see ADR 022).

export type { StepMessage, StepPage } from './verify'

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
    // Sealed as given: it is checked again where it comes back in (./verify).
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
  const kinds = factors.map((f) => f.kind)
  securityEvent('second-factor-required', { ...whoOf(context, input.email), method: input.method, factors: kinds })
  recordOutcome(pending, 'required')
  await sendSms(pending, context)
  return { setCookies: pendingCookie.write(request, pending), location: SECOND_FACTOR_PATH }
}

export type SecondFactorView = {
  redirect: string | null
  /** The way back: the account for "Confirm it's you"; else sign-in, its redirect and the address given kept. */
  back: string
  confirming: boolean
  notice: Notice | null
} & (
  | { step: 'choose'; factors: SecondFactor[] }
  | {
      step: 'code'
      factor: SecondFactor
      sent: boolean
      captcha: CaptchaSettings | null
      resendIn: number
      sentAt: number | null
      retryAt: number | null
      several: boolean
    }
)

const expired = (status?: 302): Redirect =>
  redirectTo(signInLink(null, { mfaError: 'expired' }), { status, cookies: [pendingCookie.clear()] })

export function secondFactorView(request: Request): Result<{ view: SecondFactorView }> {
  const p = pendingCookie.read(request)
  if (!p) return expired(302)
  const cookies = p.notice ? pendingCookie.write(request, { ...p, notice: null, retryAt: null }) : []
  const factor = chosenFactor(p)
  const confirming = p.confirm !== null
  const back = confirming ? '/account' : signInLink(p.redirect, p.email ? { email: p.email } : {})
  const shared = { redirect: p.redirect, back, confirming, notice: p.notice }
  if (!factor) return page({ view: { step: 'choose', factors: p.factors, ...shared } }, { cookies })
  const view: SecondFactorView = {
    step: 'code',
    factor,
    sent: factor.kind === 'phone' && p.session !== null,
    captcha: factor.kind === 'phone' && !p.session && p.captcha ? captchaSettings('mfaSmsSignIn') : null,
    resendIn: p.sentAt === null ? 0 : resendIn(p.sentAt),
    sentAt: p.sentAt,
    retryAt: p.notice === 'mfa.smsLimitedAt' ? p.retryAt : null,
    several: p.factors.length > 1,
    ...shared,
  }
  return page({ view }, { cookies })
}

export async function secondFactorAction(
  request: Request,
  form: { intent: string; factor: string; code: string; captchaResponse?: string },
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
      if (p.sentAt !== null && resendIn(p.sentAt) > 0) return back({ ...p, notice: 'mfa.resendWait' })
      const next: Pending = { ...p, notice: null }
      await sendSms(next, context, p.captcha ? (form.captchaResponse ?? '') : form.captchaResponse || undefined)
      if (next.sentAt !== p.sentAt && p.sentAt !== null) next.notice = 'mfa.resent'
      return back(next)
    }
    default:
      return verify(request, p, form.code, context)
  }
}
