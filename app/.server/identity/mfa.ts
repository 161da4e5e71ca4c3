import { z } from 'zod'
import { MfaFinalizeSchema, MfaStartSchema } from './schemas'
import type { Protect } from './index'
import { CLIENT_TYPE, captcha, type Call } from './transport'

type MfaVerification =
  { kind: 'phone'; sessionInfo: string; code: string } | { kind: 'totp'; enrollmentId: string; code: string }

const TotpStartSchema = z
  .object({
    totpSessionInfo: z.object({
      sharedSecretKey: z.string().min(1),
      verificationCodeLength: z.number().int().positive().default(6),
      hashingAlgorithm: z.string().min(1).default('SHA1'),
      periodSec: z.number().int().positive().default(30),
      sessionInfo: z.string().min(1),
      finalizeEnrollmentTime: z.string().optional(),
    }),
  })
  .transform((r) => r.totpSessionInfo)

const PhoneEnrollmentStartSchema = z
  .object({ phoneSessionInfo: z.object({ sessionInfo: z.string().min(1) }) })
  .transform((r) => ({ sessionInfo: r.phoneSessionInfo.sessionInfo }))

/** The second factor's calls: its step at sign-in, then adding (either kind) and removing one. */
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
        json: {
          mfaPendingCredential: pendingCredential,
          ...(verification.kind === 'phone'
            ? { phoneVerificationInfo: { sessionInfo: verification.sessionInfo, code: verification.code } }
            : { mfaEnrollmentId: verification.enrollmentId, totpVerificationInfo: { verificationCode: verification.code } }),
        },
        schema: MfaFinalizeSchema,
      }),

    startPhoneEnrollment: (request: { idToken: string; phoneNumber: string; captchaResponse?: string }): Promise<{ sessionInfo: string }> =>
      protect('mfaSmsEnrollment', request.captchaResponse, (token) =>
        call({
          name: 'mfaEnrollmentStart',
          path: '/v2/accounts/mfaEnrollment:start',
          json: {
            idToken: request.idToken,
            phoneEnrollmentInfo: {
              phoneNumber: request.phoneNumber,
              ...(token ? { clientType: CLIENT_TYPE, ...captcha('captchaResponse', token) } : {}),
            },
          },
          schema: PhoneEnrollmentStartSchema,
        }),
      ),

    startTotpEnrollment: (idToken: string) =>
      call({
        name: 'mfaEnrollmentStart',
        path: '/v2/accounts/mfaEnrollment:start',
        json: { idToken, totpEnrollmentInfo: {} },
        schema: TotpStartSchema,
      }),

    /** The code of either kind's enrolment, with the session its start answered. */
    finalizeEnrollment: ({ idToken, kind, sessionInfo, code, displayName }: {
      idToken: string
      kind: 'phone' | 'totp'
      sessionInfo: string
      code: string
      displayName?: string | null
    }) =>
      call({
        name: 'mfaEnrollmentFinalize',
        path: '/v2/accounts/mfaEnrollment:finalize',
        json: {
          idToken,
          ...(displayName ? { displayName } : {}),
          ...(kind === 'phone'
            ? { phoneVerificationInfo: { sessionInfo, code } }
            : { totpVerificationInfo: { sessionInfo, verificationCode: code } }),
        },
        schema: MfaFinalizeSchema,
      }),

    withdrawMfa: (idToken: string, enrollmentId: string) =>
      call({
        name: 'mfaEnrollmentWithdraw',
        path: '/v2/accounts/mfaEnrollment:withdraw',
        json: { idToken, mfaEnrollmentId: enrollmentId },
        schema: MfaFinalizeSchema,
      }),
  }
}
