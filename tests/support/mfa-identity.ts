import { randomBytes } from 'node:crypto'
import { randomTotpSecret, totpMatches, TOTP_DIGITS, TOTP_PERIOD_SECONDS } from './totp'
import { startLoopbackIdentity } from './emulator-relay'
import { answerMfaSettings, SMS_AND_APPS } from './mfa-settings'

/**
 * A small identity service on loopback for what the Firebase Auth emulator cannot do: TOTP
 * (authenticator app) second factors, and an SMS start that demands reCAPTCHA. Everything else
 * goes through to the real emulator, so sessions are real emulator session cookies.
 *
 * Accounts are real emulator accounts without a second factor; by the address they sign in with:
 * - `totp-…`: the password sign-in answers a pending credential and one TOTP factor, 'Authy'.
 *   mfaSignIn:finalize takes `123456` (the emulator's own tokens, with the second-factor claims),
 *   answers SESSION_EXPIRED to `111111`, INVALID_MFA_PENDING_CREDENTIAL to `222222`, and
 *   INVALID_CODE to anything else.
 * - `captcha-…`: one SMS factor whose mfaSignIn:start answers MISSING_RECAPTCHA_TOKEN without a
 *   `captchaResponse`; recaptchaConfig gives a site key.
 *
 * And any account can add an authenticator app for real (RFC 6238, ./totp.ts), as Identity
 * Platform does: mfaEnrollment:start with `totpEnrollmentInfo` (a verified address needed) gives a
 * random secret, mfaEnrollment:finalize takes its current code (±1 step); the factor is then
 * remembered per account here: the password sign-in answers a pending credential with it,
 * mfaSignIn:finalize checks its real code, accounts:lookup (the public and the admin one) lists it
 * in `mfaInfo`, and mfaEnrollment:withdraw removes it. Phone enrolment goes to the emulator. The
 * project's settings enable both kinds (./mfa-settings.ts).
 */
export const TOTP_CODE = '123456'
export const TOTP_EXPIRED_CODE = '111111'
export const TOTP_INVALID_SESSION_CODE = '222222'

export interface MfaIdentity {
  host: string
  /** Every mfaSignIn call, authenticator-app enrolment finalize and withdraw received, in order. */
  calls: Array<{ path: string; body: Record<string, unknown> }>
  close(): Promise<void>
}

interface Pending {
  idToken: string
  refreshToken: string
  enrollmentId: string
  /** An enrolled authenticator app's secret: its real code is checked. Else the fixed codes above. */
  secret?: string
}

type TotpFactor = { enrollmentId: string; secret: string; displayName: string | null; enrolledAt: string }

/** The account an ID token names (`sub`; the emulator's tokens are not checked here either). */
function uidOf(idToken: unknown): string | null {
  if (typeof idToken !== 'string') return null
  try {
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      sub?: unknown
    }
    return typeof claims.sub === 'string' ? claims.sub : null
  } catch {
    return null
  }
}

const mfaInfoOf = (factor: TotpFactor) => ({
  mfaEnrollmentId: factor.enrollmentId,
  ...(factor.displayName ? { displayName: factor.displayName } : {}),
  enrolledAt: factor.enrolledAt,
  totpInfo: {},
})

/** The emulator's unsigned ID token with the claims a second factor adds. */
function withSecondFactor(idToken: string, factor: 'totp' | 'phone', enrollmentId: string): string {
  const [header, payload] = idToken.split('.')
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as {
    firebase?: Record<string, unknown>
  }
  claims.firebase = { ...claims.firebase, sign_in_second_factor: factor, second_factor_identifier: enrollmentId }
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`
}

export async function startMfaIdentity(emulatorOrigin: string): Promise<MfaIdentity> {
  const calls: MfaIdentity['calls'] = []
  const pendings = new Map<string, Pending>()
  /** Authenticator apps added, per account (uid). */
  const factors = new Map<string, TotpFactor>()
  /** Enrolments started and not finished, by their sessionInfo. */
  const enrolments = new Map<string, { uid: string; secret: string; expiresAt: number }>()

  const loopback = await startLoopbackIdentity(emulatorOrigin, async ({ path, body, answer, forward, relay }) => {
    const error = (message: string) => answer(400, { error: { code: 400, message } })
    const email = typeof body.email === 'string' ? body.email : ''

    if (await answerMfaSettings({ path, answer, forward }, SMS_AND_APPS)) return
    if (path === '/v2/recaptchaConfig') {
      return answer(200, {
        recaptchaKey: 'projects/demo/keys/site-key-for-sms',
        recaptchaEnforcementState: [{ provider: 'PHONE_PROVIDER', enforcementState: 'ENFORCE' }],
      })
    }
    if (path === '/v2/accounts/mfaEnrollment:start' && body.totpEnrollmentInfo) {
      const uid = uidOf(body.idToken)
      if (!uid) return error('INVALID_ID_TOKEN')
      const lookup = await fetch(`${emulatorOrigin}/identitytoolkit.googleapis.com/v1/accounts:lookup?key=fake`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ idToken: body.idToken }),
      })
      const found = (await lookup.json()) as { users?: Array<{ emailVerified?: boolean }> }
      if (!found.users?.[0]?.emailVerified)
        return error('UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors.')
      const secret = randomTotpSecret()
      const sessionInfo = `totp-session-${randomBytes(12).toString('hex')}`
      const expiresAt = Date.now() + 10 * 60_000
      enrolments.set(sessionInfo, { uid, secret, expiresAt })
      return answer(200, {
        totpSessionInfo: {
          sharedSecretKey: secret,
          verificationCodeLength: TOTP_DIGITS,
          hashingAlgorithm: 'SHA1',
          periodSec: TOTP_PERIOD_SECONDS,
          sessionInfo,
          finalizeEnrollmentTime: new Date(expiresAt).toISOString(),
        },
      })
    }
    if (path === '/v2/accounts/mfaEnrollment:finalize' && body.totpVerificationInfo) {
      calls.push({ path, body })
      const uid = uidOf(body.idToken)
      const info = body.totpVerificationInfo as { sessionInfo?: string; verificationCode?: string }
      const enrolment = enrolments.get(info.sessionInfo ?? '')
      if (!uid || !enrolment || enrolment.uid !== uid) return error('INVALID_SESSION_INFO')
      if (enrolment.expiresAt <= Date.now()) return error('SESSION_EXPIRED')
      if (!totpMatches(enrolment.secret, info.verificationCode ?? ''))
        return error('INVALID_CODE : The verification code is invalid.')
      enrolments.delete(info.sessionInfo ?? '')
      factors.set(uid, {
        enrollmentId: `totp-${randomBytes(6).toString('hex')}`,
        secret: enrolment.secret,
        displayName: typeof body.displayName === 'string' && body.displayName ? body.displayName : null,
        enrolledAt: new Date().toISOString(),
      })
      return answer(200, { idToken: body.idToken, refreshToken: `refresh-${uid}` })
    }
    if (path === '/v2/accounts/mfaEnrollment:withdraw') {
      const uid = uidOf(body.idToken)
      const factor = uid ? factors.get(uid) : undefined
      if (uid && factor && factor.enrollmentId === body.mfaEnrollmentId) {
        calls.push({ path, body })
        factors.delete(uid)
        return answer(200, { idToken: body.idToken, refreshToken: `refresh-${uid}` })
      }
    }
    if (/^\/v1\/(projects\/[^/]+\/)?accounts:lookup$/.test(path)) {
      const upstream = await forward()
      const found = (upstream.status === 200 ? JSON.parse(upstream.body) : {}) as {
        users?: Array<{ localId: string; mfaInfo?: unknown[] }>
      }
      for (const user of found.users ?? []) {
        const factor = factors.get(user.localId)
        if (factor) user.mfaInfo = [...(user.mfaInfo ?? []), mfaInfoOf(factor)]
      }
      return answer(upstream.status, upstream.status === 200 ? found : JSON.parse(upstream.body))
    }
    if (path === '/v1/accounts:signInWithPassword' && !/^(totp|captcha)-/.test(email) && factors.size > 0) {
      const upstream = await forward()
      const tokens = (upstream.status === 200 ? JSON.parse(upstream.body) : {}) as {
        idToken?: string
        refreshToken?: string
        localId?: string
      }
      const factor = tokens.localId ? factors.get(tokens.localId) : undefined
      if (!factor || !tokens.idToken || !tokens.refreshToken) return relay(upstream)
      const credential = `pending-${randomBytes(12).toString('hex')}`
      pendings.set(credential, {
        idToken: tokens.idToken,
        refreshToken: tokens.refreshToken,
        enrollmentId: factor.enrollmentId,
        secret: factor.secret,
      })
      return answer(200, {
        localId: tokens.localId,
        email,
        mfaPendingCredential: credential,
        mfaInfo: [mfaInfoOf(factor)],
      })
    }
    if (path === '/v1/accounts:signInWithPassword' && /^(totp|captcha)-/.test(email)) {
      const upstream = await forward()
      if (upstream.status !== 200) return relay(upstream)
      const tokens = JSON.parse(upstream.body) as { idToken: string; refreshToken: string; localId: string }
      const credential = `pending-${randomBytes(12).toString('hex')}`
      const totp = email.startsWith('totp-')
      const enrollmentId = totp ? 'totp-enrollment' : 'sms-enrollment'
      pendings.set(credential, { idToken: tokens.idToken, refreshToken: tokens.refreshToken, enrollmentId })
      return answer(200, {
        localId: tokens.localId,
        email,
        mfaPendingCredential: credential,
        mfaInfo: [
          totp
            ? {
                mfaEnrollmentId: enrollmentId,
                displayName: 'Authy',
                enrolledAt: '2026-01-01T00:00:00Z',
                totpInfo: {},
              }
            : { mfaEnrollmentId: enrollmentId, displayName: 'Phone', phoneInfo: '+*******4242' },
        ],
      })
    }
    if (path.startsWith('/v2/accounts/mfaSignIn:')) {
      calls.push({ path, body })
      const credential = typeof body.mfaPendingCredential === 'string' ? body.mfaPendingCredential : ''
      const pending = pendings.get(credential)
      if (!credential) return error('MISSING_MFA_PENDING_CREDENTIAL')
      if (!pending) return error('INVALID_MFA_PENDING_CREDENTIAL')
      if (path === '/v2/accounts/mfaSignIn:start') {
        const info = (body.phoneSignInInfo ?? {}) as Record<string, unknown>
        if (!info.captchaResponse) return error('MISSING_RECAPTCHA_TOKEN')
        return answer(200, { phoneResponseInfo: { sessionInfo: `session-${credential}` } })
      }
      const totp = body.totpVerificationInfo as { verificationCode?: string } | undefined
      if (!totp) return error('INVALID_SESSION_INFO')
      if (body.mfaEnrollmentId !== pending.enrollmentId) return error('MFA_ENROLLMENT_NOT_FOUND')
      if (pending.secret !== undefined) {
        if (!totpMatches(pending.secret, totp.verificationCode ?? ''))
          return error('INVALID_CODE : The verification code is invalid.')
        pendings.delete(credential)
        return answer(200, {
          idToken: withSecondFactor(pending.idToken, 'totp', pending.enrollmentId),
          refreshToken: pending.refreshToken,
        })
      }
      if (totp.verificationCode === TOTP_EXPIRED_CODE) return error('SESSION_EXPIRED')
      if (totp.verificationCode === TOTP_INVALID_SESSION_CODE) return error('INVALID_MFA_PENDING_CREDENTIAL')
      if (totp.verificationCode !== TOTP_CODE) return error('INVALID_CODE : The verification code is invalid.')
      pendings.delete(credential)
      return answer(200, {
        idToken: withSecondFactor(pending.idToken, 'totp', pending.enrollmentId),
        refreshToken: pending.refreshToken,
      })
    }
  })
  return {
    host: loopback.host,
    calls,
    close: loopback.close,
  }
}
