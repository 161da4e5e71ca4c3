import { createHash } from 'node:crypto'
import { encode } from 'uqr'
import { z } from 'zod'
import type { AppLoadContext } from '~/.server/context'
import { COOKIES } from '~/.server/cookies'
import { codeOf, getIdentity } from '~/.server/identity'
import { messageOf, refusalOf, type MessageKey } from './code-messages'
import { FACTOR_NAME_MAX_LENGTH, retryAtAfter } from '~/lib/limits'
import { securityEvent } from '~/.server/ops/logger'
import { getRateLimits } from '~/.server/policy/rate-limit'
import { page, redirectTo, unavailable, type Result } from '~/.server/result'
import { flowCookie } from './flow-state'
import { confirmStep } from './recent-login'
import { readAccount } from './identity-admin'
import { factorOffered } from './second-factor-kinds'
import { renewIdentitySession, whoOf, type SessionUser } from './session'

// The TOTP enrolment (service session, secret) is kept in one encrypted
// cookie sealed to this browser, so a wrong code shows the same secret.

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

export function readEnrolment(request: Request, user: SessionUser): TotpEnrolment | null {
  const enrolment = enrolmentCookie.read(request)
  return enrolment && enrolment.uid === user.uid && enrolment.expiresAt > Date.now() ? enrolment : null
}

/**
 * Dark on white with a 4-module quiet zone whatever the colour scheme (what cameras read), drawn as one path
 * of each row's dark runs: well under half the bytes of a square per module.
 */
export function qrSvg(text: string): string {
  const { data, size } = encode(text, { border: 4 })
  let path = ''
  data.forEach((row, y) => {
    let pen = -1
    for (let x = 0; x < size; x++) {
      if (!row[x]) continue
      const from = x
      while (row[x + 1]) x++
      // A stroke one module wide along the row's middle; the pen moves on from the end of the last run.
      path += `${pen < 0 ? `M${from} ${y}.5` : `m${from - pen} 0`}h${x + 1 - from}`
      pen = x + 1
    }
  })
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges"><rect fill="#fff" width="${size}" height="${size}"/><path stroke="#000" d="${path}"/></svg>`
}

const TOTP_PATH = '/account/second-factor/totp'
export const removalPath = (factor: string) => `/account/second-factor/remove?${new URLSearchParams({ factor })}`

export interface TotpSetupPage {
  setup: { svg: string; secret: string; digits: number } | null
  failure: MessageKey | typeof NOT_OFFERED | typeof TOO_MANY | null
  retryAt?: number
  expired: boolean
}

export interface TotpRefusal {
  name: string
  codeError?: MessageKey | 'mfa.codeFormat'
  formError?: MessageKey | typeof NOT_OFFERED | typeof TOO_MANY
  retryAt?: number
}

export type RemovalRefusal = { formError: MessageKey | typeof TOO_MANY; retryAt?: number }

const TOO_MANY = 'error.tooManyRequestsAt'
const limited = <D>(data: D, seconds: number) => page({ ...data, retryAt: retryAtAfter(seconds) }, { status: 429, retryAfter: seconds })
const NOT_OFFERED = 'secondFactors.totpNotOffered'

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
  const shown = ({ secret, algorithm, digits, period }: TotpEnrolment, cookies: string[] = []) => {
    const { issuer } = input
    const params = new URLSearchParams({ secret, issuer, algorithm, digits: String(digits), period: String(period) })
    const svg = qrSvg(`otpauth://totp/${encodeURIComponent(issuer)}:${encodeURIComponent(email)}?${params}`)
    const grouped = secret.match(/.{1,4}/g)?.join(' ') ?? ''
    return page({ setup: { svg, secret: grouped, digits }, failure: null, expired: input.expired }, { cookies })
  }
  const kept = readEnrolment(request, user)
  if (kept) return shown(kept)
  const limit = await getRateLimits().consumeEnrolStart({ ...whoOf(context), account: user.uid })
  if (!limit.ok) return limited({ setup: null, failure: TOO_MANY, expired: false }, limit.retryAfterSeconds)
  let started
  try {
    started = await getIdentity().startTotpEnrollment(idToken)
  } catch (error) {
    const { code, key, status } = await refusalOf(error, limit)
    if (code === 'auth/requires-recent-login') return confirmStep(TOTP_PATH)
    return failed(status, code === 'auth/operation-not-allowed' ? NOT_OFFERED : key)
  }
  // Never released: every start is a new secret from the service.
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
  const pending = createHash('sha256').update(enrolment.sessionInfo).digest('base64url')
  const limit = await getRateLimits().consumeMfaCode({ ...whoOf(context), pending, account: user.uid })
  if (!limit.ok) return limited({ name: input.name, formError: TOO_MANY }, limit.retryAfterSeconds)
  let answer
  try {
    answer = await getIdentity().finalizeEnrollment({
      idToken,
      kind: 'totp',
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
    return page({ name: input.name, formError: key }, { status })
  }
  await limit.release('success')
  securityEvent('second-factor-added', { ...whoOf(context, user.email), factor: 'totp' })
  await keepSignedIn(request, user, answer.idToken)
  return redirectTo('/account?done=totp-added', { cookies: [enrolmentCookie.clear()] })
}

export async function removeFactor(
  request: Request,
  user: SessionUser,
  enrollmentId: string,
  context: Pick<AppLoadContext, 'clientIp' | 'requestId'>,
): Promise<Result<RemovalRefusal>> {
  const idToken = user.recentIdToken
  if (!idToken) return confirmStep(removalPath(enrollmentId))
  const limit = await getRateLimits().consumeNewPassword(whoOf(context))
  if (!limit.ok) return limited({ formError: TOO_MANY }, limit.retryAfterSeconds)
  let answer
  try {
    answer = await getIdentity().withdrawMfa(idToken, enrollmentId)
  } catch (error) {
    const { code, key, status } = await refusalOf(error, limit)
    if (code === 'auth/requires-recent-login') return confirmStep(removalPath(enrollmentId))
    if (code === 'auth/multi-factor-info-not-found') return redirectTo('/account')
    return page({ formError: key }, { status })
  }
  await limit.release('success')
  securityEvent('second-factor-removed', whoOf(context, user.email))
  await keepSignedIn(request, user, answer.idToken)
  return redirectTo('/account?done=factor-removed')
}

// The service may end sessions made before a change of second factors:
// the token it answers is the one that stays good (see ADR 051).
export async function keepSignedIn(request: Request, user: SessionUser, idToken: string): Promise<void> {
  await renewIdentitySession(request, user, idToken).catch(() => undefined)
}
