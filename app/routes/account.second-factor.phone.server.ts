import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import type { AppLoadContext } from '~/.server/context'
import { COOKIES } from '~/.server/cookies'
import { codeOf, getIdentity, groupOf } from '~/.server/identity'
import { messageOf } from '~/.server/auth/code-messages'
import { securityEvent } from '~/.server/ops/logger'
import { getRateLimits } from '~/.server/policy/rate-limit'
import { captchaTokenMissing, isCaptchaRefusal } from '~/.server/identity/recaptcha'
import { page, redirectTo, type Result } from '~/.server/result'
import type { TranslationKey } from '~/lib/i18n'
import { retryAtAfter } from '~/lib/limits'
import { flowCookie } from '~/.server/auth/flow-state'
import { epochSecondsNow, resendIn } from '~/.server/auth/second-factor/pending'
import { normaliseCode } from '~/.server/auth/second-factor/verify'
import { confirmStep } from '~/.server/auth/recent-login'
import { keepSignedIn } from '~/.server/auth/second-factors'
import { factorOffered } from '~/.server/auth/second-factor-kinds'
import { whoOf, type SessionUser } from '~/.server/auth/session'

/** The enrolment in progress lives in one cookie sealed to this browser, never in a page or a URL. */

const COOKIE = COOKIES.phoneEnrolment

const EnrolmentSchema = z.object({
  id: z.string(),
  /** Another account signed in in this browser does not inherit it. */
  uid: z.string(),
  phone: z.string(),
  session: z.string(),
  sentAt: z.number(),
  expires: z.number(),
})
type Enrolment = z.output<typeof EnrolmentSchema>
const enrolmentCookie = flowCookie(COOKIE, EnrolmentSchema, { until: (e) => e.expires })

export interface PhoneRefusal {
  message: TranslationKey
  field: 'phone' | 'code' | null
  phone: string
  retryAt?: number
}

const refused = (status: number, refusal: PhoneRefusal, cookies?: string[]) => page(refusal, { status, cookies })

const limited = (message: 'mfa.smsLimitedAt' | 'error.tooManyRequestsAt', phone: string, seconds: number) =>
  page<PhoneRefusal>({ message, field: null, phone, retryAt: retryAtAfter(seconds) }, { status: 429, retryAfter: seconds })

export function normalisePhone(value: string): string | null {
  const phone = value.trim().replace(/[\s.()-]/g, '')
  return /^\+[1-9]\d{7,14}$/.test(phone) ? phone : null
}

function readEnrolment(request: Request, user: SessionUser): Enrolment | null {
  const e = enrolmentCookie.read(request)
  return e && e.uid === user.uid ? e : null
}

export function enrolmentView(request: Request, user: SessionUser) {
  const e = readEnrolment(request, user)
  return e && { phone: e.phone, resendIn: resendIn(e.sentAt), sentAt: e.sentAt }
}

export async function enrolPhone(
  request: Request,
  user: SessionUser,
  input: { intent: string; phone: string; code?: string; captchaResponse?: string },
  context: AppLoadContext,
): Promise<Result<PhoneRefusal>> {
  const email = user.email
  if (!email) return redirectTo('/account')
  if (input.intent === 'another') return redirectTo(PHONE_PATH, { cookies: [enrolmentCookie.clear()] })
  if (!(await factorOffered('phone'))) return redirectTo(PHONE_PATH)
  const idToken = user.recentIdToken
  if (!idToken) return confirmStep(PHONE_PATH)
  const who = { ...user, email }
  // The two main forms are told apart by their field, without a
  // hidden intent: SubmitButton shows its pending label only then.
  if (input.code !== undefined) return addPhone(request, who, idToken, input.code, context)
  const phone = input.intent === 'resend' ? null : input.phone
  return sendCode(request, who, idToken, { phone, captchaResponse: input.captchaResponse }, context)
}

/** Limits are taken before the call, as for every SMS (see ADR 027); a sent code keeps its points. */
async function sendCode(
  request: Request,
  user: SessionUser & { email: string },
  idToken: string,
  input: { phone: string | null; captchaResponse: string | undefined },
  context: AppLoadContext,
): Promise<Result<PhoneRefusal>> {
  const typed = input.phone ?? ''
  const failed = (status: number, message: TranslationKey, field: 'phone' | null = null) =>
    refused(status, { message, field, phone: typed })
  const current = readEnrolment(request, user)
  const resending = input.phone === null
  if (resending && !current) return failed(400, 'phoneEnrolment.expired')
  const phone = resending ? current!.phone : normalisePhone(input.phone!)
  if (!phone) return failed(400, 'phoneEnrolment.badNumber', 'phone')
  if (resending && resendIn(current!.sentAt) > 0) return failed(429, 'mfa.resendWait')
  const noToken = input.captchaResponse === '' ? 'mfa.checkFailed' : 'phoneEnrolment.needsJs'
  if (captchaTokenMissing('mfaSmsEnrollment', input.captchaResponse)) return failed(400, noToken)
  const id = resending ? current!.id : randomBytes(16).toString('base64url')
  // A new number is a new enrolment and counts in enrolment starts.
  const start = resending ? null : await getRateLimits().consumeEnrolStart({ ...whoOf(context), account: user.uid })
  if (start && !start.ok) return limited('error.tooManyRequestsAt', typed, start.retryAfterSeconds)
  const limit = await getRateLimits().consumeEnrolSms({ ...whoOf(context), pending: id, account: user.email, phone })
  if (!limit.ok) return limited('mfa.smsLimitedAt', typed, limit.retryAfterSeconds)
  try {
    const { sessionInfo } = await getIdentity().startPhoneEnrollment({ idToken, phoneNumber: phone, captchaResponse: input.captchaResponse })
    await limit.release('failure') // a code was sent: it counts
    const next: Enrolment = { id, uid: user.uid, phone, session: sessionInfo, sentAt: epochSecondsNow(), expires: epochSecondsNow() + COOKIE.maxAge }
    return redirectTo(PHONE_PATH, { cookies: enrolmentCookie.write(request, next) })
  } catch (error) {
    await limit.release('no-verdict')
    await start?.release('no-verdict')
    const code = codeOf(error)
    if (code === 'auth/requires-recent-login') return confirmStep(PHONE_PATH)
    if (isCaptchaRefusal(code)) return failed(400, noToken)
    const { key, status } = messageOf(code)
    const group = groupOf(code)
    if (group === 'input') return failed(status, key, resending ? null : 'phone')
    return failed(status, group === 'unavailable' ? 'mfa.sendFailed' : key)
  }
}

export const PHONE_PATH = '/account/second-factor/phone'

async function addPhone(
  request: Request,
  user: SessionUser & { email: string },
  idToken: string,
  typed: string,
  context: AppLoadContext,
): Promise<Result<PhoneRefusal>> {
  const failed = (status: number, message: TranslationKey, field: 'code' | null = null, cookies?: string[]) =>
    refused(status, { message, field, phone: '' }, cookies)
  const ended = () => failed(400, 'phoneEnrolment.expired', null, [enrolmentCookie.clear()])
  const e = readEnrolment(request, user)
  if (!e) return ended()
  const code = normaliseCode(typed)
  if (!code) return failed(400, 'mfa.codeFormat', 'code')
  const limit = await getRateLimits().consumeMfaCode({ ...whoOf(context), pending: e.id, account: user.email })
  if (!limit.ok) return limited('error.tooManyRequestsAt', '', limit.retryAfterSeconds)
  try {
    const tokens = await getIdentity().finalizeEnrollment({ idToken, kind: 'phone', sessionInfo: e.session, code })
    await limit.release('success')
    securityEvent('second-factor-added', { ...whoOf(context, user.email), factor: 'phone' })
    await keepSignedIn(request, user, tokens.idToken)
    return redirectTo('/account?done=phone-added', { cookies: [enrolmentCookie.clear()] })
  } catch (error) {
    const code = codeOf(error)
    const { key, status } = messageOf(code)
    // Only a wrong or missing code is the service's verdict on the attempt.
    const wrongCode = key === 'mfa.wrongCode' || key === 'mfa.codeRequired'
    await limit.release(wrongCode ? 'failure' : 'no-verdict')
    if (code === 'auth/requires-recent-login') return confirmStep(PHONE_PATH)
    if (wrongCode) return failed(status, key, 'code')
    return groupOf(code) === 'second-factor' ? ended() : failed(status, key)
  }
}
