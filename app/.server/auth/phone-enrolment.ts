import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import type { AppLoadContext } from '~/.server/context'
import { COOKIES } from '~/.server/cookies'
import { codeOf, getIdentity, outcomeOf, type MessageKey } from '~/.server/identity'
import { securityEvent } from '~/.server/ops/security-events'
import { consumeEnrolSms, consumeEnrolStart, consumeMfaCode } from '~/.server/policy/rate-limit'
import {
  captchaTokenMissing,
  captchaTokenToSend,
  isCaptchaRefusal,
  recordCaptchaOutcome,
  refreshAfterDemand,
} from '~/.server/policy/recaptcha'
import { flowCookie } from './flow-state'
import { RESEND_COOLDOWN, now } from './second-factor/pending'
import { normaliseCode } from './second-factor/verify'
import { sealRecentLogin } from './recent-login'
import type { SessionUser } from './session'

/**
 * Adding a phone as a second factor (ADR 042), with the fresh ID token of "Confirm it's you"
 * (ADR 036): "Send code" (mfaEnrollment:start), then the SMS code (mfaEnrollment:finalize). The
 * enrolment in progress (number, SMS session, when the code went) lives in one cookie sealed to
 * this browser (ADR 017), never in a page or a URL. The SMS limits count per client, per enrolment,
 * per account and per number from every account; codes count as the sign-in step's do.
 */

const COOKIE = COOKIES.phoneEnrolment

const EnrolmentSchema = z.object({
  /** Random: the key of this enrolment's own limits. */
  id: z.string(),
  /** The account it was started for: another account signed in in this browser does not inherit it. */
  uid: z.string(),
  phone: z.string(),
  session: z.string(),
  sentAt: z.number(),
  expires: z.number(),
})
type Enrolment = z.output<typeof EnrolmentSchema>
const enrolmentCookie = flowCookie(COOKIE, EnrolmentSchema, { until: (e) => e.expires })

/** What the page shows of an enrolment: never its session. */
export interface EnrolmentView {
  phone: string
  /** Seconds before "Resend code" sends again. */
  resendIn: number
}

export type PhoneMessage =
  | MessageKey
  | 'phoneEnrolment.badNumber'
  | 'phoneEnrolment.exists'
  | 'phoneEnrolment.expired'
  | 'phoneEnrolment.needsJs'
  | 'mfa.codeFormat'
  | 'mfa.resendWait'
  | 'mfa.sendFailed'

export type PhoneOutcome =
  /** Go there (303), setting these cookies. */
  | { kind: 'redirect'; location: string; setCookies: string[] }
  /** The fresh token is too old for the service: "Confirm it's you" again (the enrolment is kept). */
  | { kind: 'confirm' }
  /** Stay, with this message; `field` says which field it is about. */
  | { kind: 'error'; status: number; message: PhoneMessage; field: 'phone' | 'code' | null; setCookies?: string[] }

/** Where the account page goes after a phone was added: it says so. */
export const PHONE_ADDED = '/account?done=phone-added'

/**
 * A number as typed, in E.164: a leading +, then 8 to 15 digits, the first not 0. Spaces, dots,
 * dashes and brackets people write between groups are dropped; anything else is refused.
 */
export function normalisePhone(value: string): string | null {
  const phone = value.trim().replace(/[\s.()-]/g, '')
  return /^\+[1-9]\d{7,14}$/.test(phone) ? phone : null
}

function readEnrolment(request: Request, user: SessionUser): Enrolment | null {
  const e = enrolmentCookie.read(request)
  return e && e.uid === user.uid ? e : null
}

/** For the phone's page. */
export const clearEnrolment = enrolmentCookie.clear

export function enrolmentView(request: Request, user: SessionUser): EnrolmentView | null {
  const e = readEnrolment(request, user)
  return e && { phone: e.phone, resendIn: Math.max(0, e.sentAt + RESEND_COOLDOWN - now()) }
}

/**
 * "Send code" (a number typed) or "Resend code" (the enrolment's number, after its cooldown). The
 * limits are taken before the call, as every SMS is (ADR 027), and a sent code keeps its points.
 */
export async function sendCode(
  request: Request,
  user: SessionUser & { email: string },
  idToken: string,
  input: { phone: string | null; captchaResponse: string | undefined },
  context: AppLoadContext,
): Promise<PhoneOutcome> {
  const current = readEnrolment(request, user)
  const resending = input.phone === null
  if (resending && !current) return { kind: 'error', status: 400, message: 'phoneEnrolment.expired', field: null }
  const phone = resending ? current!.phone : normalisePhone(input.phone!)
  if (!phone) return { kind: 'error', status: 400, message: 'phoneEnrolment.badNumber', field: 'phone' }
  if (resending && current!.sentAt + RESEND_COOLDOWN > now()) {
    return { kind: 'error', status: 429, message: 'mfa.resendWait', field: null }
  }
  // Without JavaScript no token can be had: the service would refuse the call (ADR 020).
  if (captchaTokenMissing('mfaSmsEnrollment', input.captchaResponse)) {
    return { kind: 'error', status: 400, message: 'phoneEnrolment.needsJs', field: null }
  }
  const id = resending ? current!.id : randomBytes(16).toString('base64url')
  // A new number is a new enrolment: it counts in the enrolment starts, as an authenticator app does.
  const start = resending ? null : await consumeEnrolStart({ ip: context.clientIp, account: user.uid, reqId: context.requestId })
  if (start && !start.ok) return { kind: 'error', status: 429, message: 'error.tooManyRequests', field: null }
  const limit = await consumeEnrolSms({ ip: context.clientIp, pending: id, account: user.email, phone, reqId: context.requestId })
  if (!limit.ok) return { kind: 'error', status: 429, message: 'error.tooManyRequests', field: null }
  const captchaResponse = captchaTokenToSend('mfaSmsEnrollment', input.captchaResponse)
  try {
    const { sessionInfo } = await getIdentity().startPhoneEnrollment({ idToken, phoneNumber: phone, captchaResponse })
    recordCaptchaOutcome('mfaSmsEnrollment', captchaResponse !== undefined, null)
    await limit.release('failure') // a code was sent: it counts
    const next: Enrolment = { id, uid: user.uid, phone, session: sessionInfo, sentAt: now(), expires: now() + COOKIE.maxAge }
    return { kind: 'redirect', location: PHONE_PATH, setCookies: enrolmentCookie.write(request, next) }
  } catch (error) {
    await limit.release('void')
    await start?.release('void')
    const code = codeOf(error)
    recordCaptchaOutcome('mfaSmsEnrollment', captchaResponse !== undefined, code)
    if (code === 'auth/requires-recent-login') return { kind: 'confirm' }
    if (isCaptchaRefusal(code)) {
      // Enforcement may have come on since the page was served: the next page load offers the check.
      await refreshAfterDemand('mfaSmsEnrollment')
      return { kind: 'error', status: 400, message: 'phoneEnrolment.needsJs', field: null }
    }
    const { key, status, group } = outcomeOf(code)
    if (group === 'input') return { kind: 'error', status, message: key, field: resending ? null : 'phone' }
    return { kind: 'error', status, message: group === 'unavailable' ? 'mfa.sendFailed' : key, field: null }
  }
}

export const PHONE_PATH = '/account/second-factor/phone'

/**
 * "Add": the SMS code completes the enrolment (mfaEnrollment:finalize). A wrong code keeps the
 * page; an expired or spent session ends the enrolment. The service answers fresh tokens: the
 * session cookie stays good (adding a factor revokes nothing), and the token is sealed again as
 * this browser's recent confirmation.
 */
export async function addPhone(
  request: Request,
  user: SessionUser & { email: string },
  idToken: string,
  typed: string,
  context: AppLoadContext,
): Promise<PhoneOutcome> {
  const e = readEnrolment(request, user)
  if (!e) return { kind: 'error', status: 400, message: 'phoneEnrolment.expired', field: null, setCookies: [enrolmentCookie.clear()] }
  const code = normaliseCode(typed)
  if (!code) return { kind: 'error', status: 400, message: 'mfa.codeFormat', field: 'code' }
  const limit = await consumeMfaCode({ ip: context.clientIp, pending: e.id, account: user.email, reqId: context.requestId })
  if (!limit.ok) return { kind: 'error', status: 429, message: 'error.tooManyRequests', field: 'code' }
  try {
    const tokens = await getIdentity().finalizePhoneEnrollment({ idToken, sessionInfo: e.session, code })
    await limit.release('success')
    securityEvent('second-factor-added', { reqId: context.requestId, ip: context.clientIp, email: user.email, factor: 'phone' })
    const resealed = sealRecentLogin(request, user, tokens.idToken) ?? []
    return { kind: 'redirect', location: PHONE_ADDED, setCookies: [...resealed, enrolmentCookie.clear()] }
  } catch (error) {
    const failed = codeOf(error)
    if (failed === 'auth/requires-recent-login') {
      await limit.release('void')
      return { kind: 'confirm' }
    }
    const { key, status, group } = outcomeOf(failed)
    if (key === 'mfa.wrongCode' || key === 'mfa.codeRequired') {
      await limit.release('failure')
      return { kind: 'error', status, message: key, field: 'code' }
    }
    await limit.release('void')
    if (group === 'second-factor') {
      return { kind: 'error', status: 400, message: 'phoneEnrolment.expired', field: null, setCookies: [enrolmentCookie.clear()] }
    }
    return { kind: 'error', status, message: key, field: null }
  }
}
