import { createHash } from 'node:crypto'
import { renderSVG } from 'uqr'
import { z } from 'zod'
import type { AppLoadContext } from '~/.server/context'
import { COOKIES } from '~/.server/cookies'
import { codeOf, getIdentity } from '~/.server/identity'
import { messageOf, type MessageKey } from './code-messages'
import { FACTOR_NAME_MAX_LENGTH, retryAtAfter } from '~/lib/limits'
import { securityEvent } from '~/.server/ops/security-events'
import { consumeEnrolStart, consumeMfaCode, consumeNewPassword } from '~/.server/policy/rate-limit'
import { page, redirectTo, unavailable, type Result } from '~/.server/result'
import { flowCookie } from './flow-state'
import { confirmStep } from './recent-login'
import { readAccount } from './identity-admin'
import { factorOffered } from './second-factor-kinds'
import { renewIdentitySession, type SessionUser } from './session'

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

/**
 * The `otpauth://` URI an authenticator app reads from the QR code (Google Authenticator's key URI
 * format): the issuer is the portal's brand, the account its address.
 */
export function otpauthUri(enrolment: TotpEnrolment, issuer: string, account: string): string {
  const { secret, algorithm, digits, period } = enrolment
  const params = new URLSearchParams({ secret, issuer, algorithm, digits: String(digits), period: String(period) })
  return `otpauth://totp/${encodeURIComponent(issuer)}:${encodeURIComponent(account)}?${params}`
}

/** Where an authenticator app is added: "Confirm it's you" comes back to it. */
const TOTP_PATH = '/account/second-factor/totp'
/** The factor is named in the query (its enrolment id, no secret): "Confirm it's you" comes back to it. */
export const removalPath = (factor: string) => `/account/second-factor/remove?${new URLSearchParams({ factor })}`

/** What the authenticator app's page shows: the QR code and the secret to type, or why it cannot. */
export interface TotpSetupPage {
  setup: { svg: string; secret: string; digits: number } | null
  failure: MessageKey | typeof NOT_OFFERED | typeof TOO_MANY | null
  /** A limit's: when it lets go, in milliseconds since the epoch. */
  retryAt?: number
  /** The previous enrolment ended: the page says why the QR code changed. */
  expired: boolean
}

/** What the authenticator app's form shows again: the name as typed, never the code. */
export interface TotpRefusal {
  name: string
  codeError?: MessageKey | 'mfa.codeFormat'
  formError?: MessageKey | typeof NOT_OFFERED | typeof TOO_MANY
  retryAt?: number
}

/** What the removal's page shows again. */
export type RemovalRefusal = { formError: MessageKey | typeof TOO_MANY; retryAt?: number }

/** A limit, with when it lets go (`retryAt`). */
const TOO_MANY = 'error.tooManyRequestsAt'
const limited = <D>(data: D, seconds: number) => page({ ...data, retryAt: retryAtAfter(seconds) }, { status: 429, retryAfter: seconds })
/** The project does not enable authenticator apps (ADR 072), or the service refused to start one. */
const NOT_OFFERED = 'secondFactors.totpNotOffered'

/**
 * The authenticator app's page: a verified address first, then a recent "Confirm it's you" (ADR
 * 036). The secret is the one this browser's enrolment holds (ADR 041), else a new one
 * (`mfaEnrollment:start`), which takes a point per client and per account: each is a new secret
 * from the service. A refresh or a wrong code shows the same QR code.
 */
export async function totpSetup(
  request: Request,
  user: SessionUser,
  input: { expired: boolean; issuer: string },
  context: Pick<AppLoadContext, 'clientIp' | 'requestId'>,
): Promise<Result<TotpSetupPage>> {
  const failed = (status: number, failure: TotpSetupPage['failure']) => page({ setup: null, failure, expired: false }, { status })
  if (!(await factorOffered('totp'))) return failed(404, NOT_OFFERED)
  const account = await readAccount(user.uid).catch(() => null)
  if (!account) return unavailable()
  const email = account.email
  if (!account.emailVerified || !email) return redirectTo('/account', { status: 302 })
  const idToken = user.recentIdToken
  if (!idToken) return confirmStep(TOTP_PATH)
  const shown = (enrolment: TotpEnrolment, cookies: string[] = []) => {
    const uri = otpauthUri(enrolment, input.issuer, email)
    // Dark modules on a white quiet zone of 4 modules, whatever the page's colour scheme: what cameras read.
    const svg = renderSVG(uri, { border: 4, pixelSize: 4, whiteColor: '#fff', blackColor: '#000' })
    const secret = enrolment.secret.match(/.{1,4}/g)?.join(' ') ?? ''
    return page({ setup: { svg, secret, digits: enrolment.digits }, failure: null, expired: input.expired }, { cookies })
  }
  const kept = readEnrolment(request, user)
  if (kept) return shown(kept)
  const limit = await consumeEnrolStart({ ip: context.clientIp, account: user.uid, reqId: context.requestId })
  if (!limit.ok) return limited({ setup: null, failure: TOO_MANY, expired: false }, limit.retryAfterSeconds)
  let started
  try {
    started = await getIdentity().startTotpEnrollment(idToken)
  } catch (error) {
    const code = codeOf(error)
    if (code === 'auth/requires-recent-login') return confirmStep(TOTP_PATH)
    const { key, status } = messageOf(code)
    if (status >= 500) await limit.release('no-verdict')
    return failed(status, code === 'auth/operation-not-allowed' ? NOT_OFFERED : key)
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
  return shown(enrolment, enrolmentCookie.write(request, enrolment))
}

/**
 * Adds the authenticator app with a code from it (`mfaEnrollment:finalize`), with the fresh token
 * of "Confirm it's you". Codes count in the second factor's limits (per client, per account, and
 * per enrolment session as the pending step). An enrolment that ended starts again from the page,
 * which says why the QR code changed.
 */
export async function addTotp(
  request: Request,
  user: SessionUser,
  input: { code: string; name: string },
  context: Pick<AppLoadContext, 'clientIp' | 'requestId'>,
): Promise<Result<TotpRefusal>> {
  if (!(await factorOffered('totp'))) return page({ name: input.name, formError: NOT_OFFERED }, { status: 404 })
  const idToken = user.recentIdToken
  if (!idToken) return confirmStep(TOTP_PATH)
  const expired = redirectTo(`${TOTP_PATH}?expired`, { cookies: [enrolmentCookie.clear()] })
  const enrolment = readEnrolment(request, user)
  if (!enrolment) return expired
  const code = input.code.replace(/\s/g, '')
  if (!/^\d+$/.test(code) || code.length !== enrolment.digits)
    return page({ name: input.name, codeError: 'mfa.codeFormat' }, { status: 400 })
  const limit = await consumeMfaCode({
    ip: context.clientIp,
    reqId: context.requestId,
    pending: createHash('sha256').update(enrolment.sessionInfo).digest('base64url'),
    account: user.uid,
  })
  if (!limit.ok) return limited({ name: input.name, formError: TOO_MANY }, limit.retryAfterSeconds)
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
      return page({ name: input.name, codeError: 'mfa.wrongCode' }, { status: 400 })
    }
    await limit.release('no-verdict')
    if (failed === 'auth/requires-recent-login') return confirmStep(TOTP_PATH)
    if (failed === 'auth/code-expired' || failed === 'auth/invalid-verification-id') return expired
    const { key, status } = messageOf(failed)
    return page(key === 'mfa.wrongCode' ? { name: input.name, codeError: key } : { name: input.name, formError: key }, { status })
  }
  await limit.release('success')
  securityEvent('second-factor-added', {
    reqId: context.requestId,
    ip: context.clientIp,
    email: user.email ?? undefined,
    factor: 'totp',
  })
  await keepSignedIn(request, user, answer.idToken)
  const cookies = [enrolmentCookie.clear()]
  return redirectTo('/account?done=totp-added', { cookies })
}

/**
 * Removes a second factor (`mfaEnrollment:withdraw`) with the fresh token of "Confirm it's you",
 * counted in the account changes' limit. The last one may go: the account then signs in with its
 * password alone. One already gone (removed in another tab, or by the emailed undo link) leaves
 * the account page to say what is left.
 */
export async function removeFactor(
  request: Request,
  user: SessionUser,
  enrollmentId: string,
  context: Pick<AppLoadContext, 'clientIp' | 'requestId'>,
): Promise<Result<RemovalRefusal>> {
  const idToken = user.recentIdToken
  if (!idToken) return confirmStep(removalPath(enrollmentId))
  const limit = await consumeNewPassword({ ip: context.clientIp, reqId: context.requestId })
  if (!limit.ok) return limited({ formError: TOO_MANY }, limit.retryAfterSeconds)
  let answer
  try {
    answer = await getIdentity().withdrawMfa(idToken, enrollmentId)
  } catch (error) {
    const code = codeOf(error)
    const { key, status } = messageOf(code)
    if (status >= 500) await limit.release('no-verdict')
    if (code === 'auth/requires-recent-login') return confirmStep(removalPath(enrollmentId))
    if (code === 'auth/multi-factor-info-not-found') return redirectTo('/account')
    return page({ formError: key }, { status })
  }
  await limit.release('success')
  securityEvent('second-factor-removed', {
    reqId: context.requestId,
    ip: context.clientIp,
    email: user.email ?? undefined,
  })
  await keepSignedIn(request, user, answer.idToken)
  return redirectTo('/account?done=factor-removed')
}

/**
 * This browser's session again, from the ID token a change of second factors answered (an
 * authenticator app or a phone added, a factor removed; ADR 041, ADR 051): the service may end
 * the sessions made before such a change, as it does after a password change, and the token it
 * answers is the one that stays good. The record takes it, and keeps it as recent. When the
 * service's new session cannot be made, the record stays as it was.
 */
export async function keepSignedIn(request: Request, user: SessionUser, idToken: string): Promise<void> {
  await renewIdentitySession(request, user, idToken).catch(() => undefined)
}
