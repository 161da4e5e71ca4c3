import { z } from 'zod'
import { MfaFinalizeSchema } from './schemas'
import type { Protect } from './index'
import { CLIENT_TYPE, captcha, type Call } from './transport'

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

export function mfaEnrollmentCalls(call: Call, protect: Protect) {
  return {
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

    finalizePhoneEnrollment: (request: { idToken: string; sessionInfo: string; code: string; displayName?: string }) =>
      call({
        name: 'mfaEnrollmentFinalize',
        path: '/v2/accounts/mfaEnrollment:finalize',
        json: {
          idToken: request.idToken,
          phoneVerificationInfo: { sessionInfo: request.sessionInfo, code: request.code },
          ...(request.displayName ? { displayName: request.displayName } : {}),
        },
        schema: MfaFinalizeSchema,
      }),

    startTotpEnrollment: (idToken: string) =>
      call({
        name: 'mfaEnrollmentStart',
        path: '/v2/accounts/mfaEnrollment:start',
        json: { idToken, totpEnrollmentInfo: {} },
        schema: TotpStartSchema,
      }),

    finalizeTotpEnrollment: (request: {
      idToken: string
      sessionInfo: string
      code: string
      displayName: string | null
    }) =>
      call({
        name: 'mfaEnrollmentFinalize',
        path: '/v2/accounts/mfaEnrollment:finalize',
        json: {
          idToken: request.idToken,
          ...(request.displayName ? { displayName: request.displayName } : {}),
          totpVerificationInfo: { sessionInfo: request.sessionInfo, verificationCode: request.code },
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
