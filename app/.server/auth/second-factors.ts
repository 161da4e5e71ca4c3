import { createHash } from 'node:crypto'
import { z } from 'zod'
import type { AppLoadContext } from '~/.server/context'
import { COOKIES } from '~/.server/cookies'
import { codeOf, getIdentity, outcomeOf, type MessageKey } from '~/.server/identity'
import { FACTOR_NAME_MAX_LENGTH } from '~/lib/limits'
import { securityEvent } from '~/.server/ops/security-events'
import { consumeEnrolStart, consumeMfaCode, consumeNewPassword } from '~/.server/policy/rate-limit'
import { flowCookie } from './flow-state'
import { sealRecentLogin } from './recent-login'
import { createSession, type SessionUser } from './session'

/**
 * The second factors their owner adds and removes from the account page (ADR 041), always with the
 * fresh ID token of "Confirm it's you" (ADR 036). An authenticator app being added keeps its
 * enrolment (the service's session, the secret and when it ends) in one cookie, encrypted and
 * sealed to this browser: the same secret is shown again after a wrong code, and the session
 * never reaches a page or a URL.
 */

/** The longest the portal keeps an enrolment, whatever the service says: the cookie's own life. */
const ENROLMENT_MS = COOKIES.mfaEnrollment.maxAge * 1000

const EnrolmentSchema = z.object({
  uid: z.string(),
  sessionInfo: z.string(),
  secret: z.string(),
  digits: z.number().int(),
  algorithm: z.string(),
  period: z.number().int(),
  expiresAt: z.number(),
})
export type TotpEnrolment = z.output<typeof EnrolmentSchema>
const enrolmentCookie = flowCookie(COOKIES.mfaEnrollment, EnrolmentSchema)

/** The authenticator app this browser is adding to this account, or null (none, ended, another's). */
export function readEnrolment(request: Request, user: SessionUser): TotpEnrolment | null {
  const enrolment = enrolmentCookie.read(request)
  return enrolment && enrolment.uid === user.uid && enrolment.expiresAt > Date.now() ? enrolment : null
}

/** For the authenticator app's page. */
export const clearEnrolment = enrolmentCookie.clear

/**
 * The `otpauth://` URI an authenticator app reads from the QR code (Google Authenticator's key URI
 * format): the issuer is the portal's brand, the account its address.
 */
export function otpauthUri(enrolment: TotpEnrolment, issuer: string, account: string): string {
  const params = new URLSearchParams({
    secret: enrolment.secret,
    issuer,
    algorithm: enrolment.algorithm,
    digits: String(enrolment.digits),
    period: String(enrolment.period),
  })
  return `otpauth://totp/${encodeURIComponent(issuer)}:${encodeURIComponent(account)}?${params}`
}

type Failure = { status: 'error'; httpStatus: number; message: MessageKey | 'mfa.codeFormat' }
const tooMany: Failure = { status: 'error', httpStatus: 429, message: 'error.tooManyRequests' }

function failure(code: ReturnType<typeof codeOf>): Failure {
  const { key, status } = outcomeOf(code)
  return { status: 'error', httpStatus: status, message: key }
}

export type EnrolmentOutcome =
  { status: 'ready'; enrolment: TotpEnrolment; setCookies: string[] } | { status: 'confirm' } | Failure

/**
 * The enrolment this browser started, or a new one (`mfaEnrollment:start`), which takes a point per
 * client and per account: each is a new secret from the service.
 */
export async function totpEnrolment(
  request: Request,
  user: SessionUser,
  idToken: string,
  context: Pick<AppLoadContext, 'clientIp' | 'requestId'>,
): Promise<EnrolmentOutcome> {
  const kept = readEnrolment(request, user)
  if (kept) return { status: 'ready', enrolment: kept, setCookies: [] }
  const limit = await consumeEnrolStart({ ip: context.clientIp, account: user.uid, reqId: context.requestId })
  if (!limit.ok) return tooMany
  let started
  try {
    started = await getIdentity().startTotpEnrollment(idToken)
  } catch (error) {
    const code = codeOf(error)
    if (code === 'auth/requires-recent-login') return { status: 'confirm' }
    if (outcomeOf(code).status >= 500) await limit.release('void')
    return failure(code)
  }
  // Kept (never released): every start is a new secret, whether or not it is finished.
  const until = Date.parse(started.finalizeEnrollmentTime ?? '')
  const enrolment: TotpEnrolment = {
    uid: user.uid,
    sessionInfo: started.sessionInfo,
    secret: started.sharedSecretKey,
    digits: started.verificationCodeLength,
    algorithm: started.hashingAlgorithm,
    period: started.periodSec,
    expiresAt: Math.min(Number.isNaN(until) ? Infinity : until, Date.now() + ENROLMENT_MS),
  }
  const setCookies = enrolmentCookie.write(request, enrolment)
  return { status: 'ready', enrolment, setCookies }
}

export type ChangeOutcome =
  /** Done: append `setCookies` (this browser's session, renewed) and go to the account page. */
  | { status: 'done'; setCookies: string[] }
  | { status: 'confirm' }
  /** The enrolment ended (or the factor is gone): start again from the page. */
  | { status: 'expired' }
  | Failure

/**
 * Adds the authenticator app with a code from it (`mfaEnrollment:finalize`). Codes count in the
 * second factor's limits (per client, per account, and per enrolment session as the pending step).
 */
export async function addTotp(
  request: Request,
  user: SessionUser,
  idToken: string,
  input: { code: string; name: string },
  context: Pick<AppLoadContext, 'clientIp' | 'requestId'>,
): Promise<ChangeOutcome> {
  const enrolment = readEnrolment(request, user)
  if (!enrolment) return { status: 'expired' }
  const code = input.code.replace(/\s/g, '')
  if (!/^\d+$/.test(code) || code.length !== enrolment.digits)
    return { status: 'error', httpStatus: 400, message: 'mfa.codeFormat' }
  const limit = await consumeMfaCode({
    ip: context.clientIp,
    reqId: context.requestId,
    pending: createHash('sha256').update(enrolment.sessionInfo).digest('base64url'),
    account: user.uid,
  })
  if (!limit.ok) return tooMany
  let answer
  try {
    answer = await getIdentity().finalizeTotpEnrollment({
      idToken,
      sessionInfo: enrolment.sessionInfo,
      code,
      displayName: input.name.trim().slice(0, FACTOR_NAME_MAX_LENGTH) || null,
    })
  } catch (error) {
    const failed = codeOf(error)
    if (failed === 'auth/invalid-verification-code') {
      await limit.release('failure')
      return { status: 'error', httpStatus: 400, message: 'mfa.wrongCode' }
    }
    await limit.release('void')
    if (failed === 'auth/requires-recent-login') return { status: 'confirm' }
    if (failed === 'auth/code-expired' || failed === 'auth/invalid-verification-id') return { status: 'expired' }
    return failure(failed)
  }
  await limit.release('success')
  securityEvent('second-factor-added', {
    reqId: context.requestId,
    ip: context.clientIp,
    email: user.email ?? undefined,
    factor: 'totp',
  })
  return { status: 'done', setCookies: [enrolmentCookie.clear(), ...(await keepSignedIn(request, user, answer.idToken))] }
}

/**
 * Removes a second factor (`mfaEnrollment:withdraw`), counted in the account changes' limit. The
 * last one may go: the account then signs in with its password alone.
 */
export async function removeFactor(
  request: Request,
  user: SessionUser,
  idToken: string,
  enrollmentId: string,
  context: Pick<AppLoadContext, 'clientIp' | 'requestId'>,
): Promise<ChangeOutcome> {
  const limit = await consumeNewPassword({ ip: context.clientIp, reqId: context.requestId })
  if (!limit.ok) return tooMany
  let answer
  try {
    answer = await getIdentity().withdrawMfa(idToken, enrollmentId)
  } catch (error) {
    const code = codeOf(error)
    if (outcomeOf(code).status >= 500) await limit.release('void')
    if (code === 'auth/requires-recent-login') return { status: 'confirm' }
    if (code === 'auth/multi-factor-info-not-found') return { status: 'expired' }
    return failure(code)
  }
  await limit.release('success')
  securityEvent('second-factor-removed', {
    reqId: context.requestId,
    ip: context.clientIp,
    email: user.email ?? undefined,
  })
  return { status: 'done', setCookies: await keepSignedIn(request, user, answer.idToken) }
}

/**
 * This browser's session again, from the ID token the change answered (ADR 041): the service may
 * end the sessions made before a change of second factors, as it does after a password change,
 * and the token it answers is the one that stays good. The confirmation is kept with it. When the
 * session cannot be made, the current cookie stays.
 */
async function keepSignedIn(request: Request, user: SessionUser, idToken: string): Promise<string[]> {
  const session = await createSession(idToken, { remember: user.remembered }).catch(() => null)
  return [...(session ? [session] : []), ...(sealRecentLogin(request, user, idToken) ?? [])]
}
