import { z } from 'zod'
import { MfaFinalizeSchema, type MfaFinalizeResult } from './schemas'
import type { Call } from './transport'

/**
 * A second factor the account owner adds or takes away (`v2/accounts/mfaEnrollment:*`), with the
 * fresh ID token of "Confirm it's you" (ADR 036): an authenticator app (TOTP) here; withdrawing
 * any kind of factor.
 */

/** mfaEnrollment:start for an authenticator app: the shared secret, its parameters and the session the code is tied to. */
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
export type TotpEnrollment = z.output<typeof TotpStartSchema>

export function mfaEnrollmentCalls(call: Call) {
  return {
    /** Starts adding an authenticator app: the secret the app is given, as a QR code or typed. */
    startTotpEnrollment: (idToken: string): Promise<TotpEnrollment> =>
      call({
        name: 'mfaEnrollmentStart',
        path: '/v2/accounts/mfaEnrollment:start',
        json: { idToken, totpEnrollmentInfo: {} },
        schema: TotpStartSchema,
      }),

    /** Adds the authenticator app once a code from it proves it holds the secret. */
    finalizeTotpEnrollment: (request: {
      idToken: string
      sessionInfo: string
      code: string
      displayName: string | null
    }): Promise<MfaFinalizeResult> =>
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

    /** Takes a second factor away; the answer carries new tokens for this sign-in. */
    withdrawMfa: (idToken: string, enrollmentId: string): Promise<MfaFinalizeResult> =>
      call({
        name: 'mfaEnrollmentWithdraw',
        path: '/v2/accounts/mfaEnrollment:withdraw',
        json: { idToken, mfaEnrollmentId: enrollmentId },
        schema: MfaFinalizeSchema,
      }),
  }
}
