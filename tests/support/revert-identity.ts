import { randomBytes } from 'node:crypto'
import { startLoopbackIdentity } from './emulator-relay'

/**
 * The emulator, plus the email Identity Platform sends after a second factor is added: the
 * emulator sends none (firebase-tools 15.34: `mfaEnrollment:finalize` makes no oobCode). Every
 * call goes to the emulator; after a `mfaEnrollment:finalize` it answered, this service "emails"
 * a REVERT_SECOND_FACTOR_ADDITION code (`sent`), which it then checks (`accounts:resetPassword`
 * without a password) and applies (`accounts:update`): the factor is withdrawn from the account
 * in the emulator, as the service would.
 */

export interface RevertEmail {
  email: string
  oobCode: string
  enrollmentId: string
}

export interface RevertIdentity {
  host: string
  /** The revert emails "sent", oldest first. */
  sent: RevertEmail[]
  close(): Promise<void>
}

const OWNER = { Authorization: 'Bearer owner', 'Content-Type': 'application/json' }

function claimsOf(idToken: string): {
  user_id: string
  email: string
  firebase?: { second_factor_identifier?: string }
} {
  return JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8'))
}

export async function startRevertIdentity(emulatorOrigin: string, projectId: string): Promise<RevertIdentity> {
  const sent: RevertEmail[] = []
  const spent = new Set<string>()
  const admin = `${emulatorOrigin}/identitytoolkit.googleapis.com/v1/projects/${projectId}`

  /** Withdraws the enrollment from the account, as the project owner. */
  async function withdraw(email: string, enrollmentId: string) {
    const found = (await (
      await fetch(`${admin}/accounts:lookup`, {
        method: 'POST',
        headers: OWNER,
        body: JSON.stringify({ email: [email] }),
      })
    ).json()) as {
      users?: Array<{
        localId: string
        mfaInfo?: Array<{ mfaEnrollmentId: string; phoneInfo?: string; displayName?: string }>
      }>
    }
    const user = found.users?.[0]
    if (!user) return
    const enrollments = (user.mfaInfo ?? [])
      .filter((f) => f.mfaEnrollmentId !== enrollmentId)
      .map((f) => ({ mfaEnrollmentId: f.mfaEnrollmentId, phoneInfo: f.phoneInfo, displayName: f.displayName }))
    await fetch(`${admin}/accounts:update`, {
      method: 'POST',
      headers: OWNER,
      body: JSON.stringify({ localId: user.localId, mfa: { enrollments } }),
    })
  }

  const loopback = await startLoopbackIdentity(emulatorOrigin, async ({ path, body, answer, forward, relay }) => {
    const code = typeof body.oobCode === 'string' ? body.oobCode : ''
    const revert = sent.find((e) => e.oobCode === code && !spent.has(code))

    if (path === '/v1/accounts:resetPassword' && code.startsWith('revert-') && !body.newPassword) {
      if (!revert) return answer(400, { error: { code: 400, message: 'INVALID_OOB_CODE' } })
      return answer(200, {
        requestType: 'REVERT_SECOND_FACTOR_ADDITION',
        email: revert.email,
        mfaInfo: { mfaEnrollmentId: revert.enrollmentId, phoneInfo: '+*******0000' },
      })
    }
    if (path === '/v1/accounts:update' && code.startsWith('revert-')) {
      if (!revert) return answer(400, { error: { code: 400, message: 'INVALID_OOB_CODE' } })
      spent.add(code)
      await withdraw(revert.email, revert.enrollmentId)
      return answer(200, { email: revert.email })
    }

    const upstream = await forward()
    if (path === '/v2/accounts/mfaEnrollment:finalize' && upstream.status === 200) {
      const claims = claimsOf((JSON.parse(upstream.body) as { idToken: string }).idToken)
      const enrollmentId = claims.firebase?.second_factor_identifier
      if (enrollmentId)
        sent.push({ email: claims.email, oobCode: `revert-${randomBytes(12).toString('hex')}`, enrollmentId })
    }
    relay(upstream)
  })
  return {
    host: loopback.host,
    sent,
    close: loopback.close,
  }
}
