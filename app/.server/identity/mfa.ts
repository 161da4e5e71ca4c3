import { MfaFinalizeSchema, MfaStartSchema } from './schemas'
import type { Protect } from './index'
import { CLIENT_TYPE, captcha, type Call } from './transport'

type MfaVerification =
  { kind: 'phone'; sessionInfo: string; code: string } | { kind: 'totp'; enrollmentId: string; code: string }

export function mfaCalls(call: Call, protect: Protect) {
  return {
    startMfaSignIn: (request: { pendingCredential: string; enrollmentId: string; captchaResponse?: string }): Promise<{ sessionInfo: string }> =>
      protect('mfaSmsSignIn', request.captchaResponse, (token) =>
        call({
          name: 'mfaSignInStart',
          path: '/v2/accounts/mfaSignIn:start',
          json: {
            mfaPendingCredential: request.pendingCredential,
            mfaEnrollmentId: request.enrollmentId,
            phoneSignInInfo: token ? { clientType: CLIENT_TYPE, ...captcha('captchaResponse', token) } : {},
          },
          schema: MfaStartSchema,
        }),
      ),

    finalizeMfaSignIn: (pendingCredential: string, verification: MfaVerification) =>
      call({
        name: 'mfaSignInFinalize',
        path: '/v2/accounts/mfaSignIn:finalize',
        json:
          verification.kind === 'phone'
            ? {
                mfaPendingCredential: pendingCredential,
                phoneVerificationInfo: { sessionInfo: verification.sessionInfo, code: verification.code },
              }
            : {
                mfaPendingCredential: pendingCredential,
                mfaEnrollmentId: verification.enrollmentId,
                totpVerificationInfo: { verificationCode: verification.code },
              },
        schema: MfaFinalizeSchema,
      }),
  }
}
