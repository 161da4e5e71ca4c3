import { z } from 'zod'
import { MfaFinalizeSchema, type MfaFinalizeResult } from './schemas'
import { CLIENT_TYPE, RECAPTCHA_VERSION, type Call } from './transport'

/**
 * A second factor the account owner adds or takes away (`v2/accounts/mfaEnrollment:*`), with the
 * fresh ID token of "Confirm it's you" (ADR 036): an authenticator app (TOTP, ADR 041), a phone
 * (ADR 042), and withdrawing any kind of factor.
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

/** mfaEnrollment:start for a phone: the session the SMS code is tied to. */
const PhoneEnrollmentStartSchema = z
  .object({ phoneSessionInfo: z.object({ sessionInfo: z.string().min(1) }) })
  .transform((r) => ({ sessionInfo: r.phoneSessionInfo.sessionInfo }))

export function mfaEnrollmentCalls(call: Call) {
  return {
    /**
     * Sends an SMS code to `phoneNumber` (E.164). Where the project demands reCAPTCHA Enterprise for
     * phones, `captchaResponse` is a token made for the action `mfaSmsEnrollment`, sent as the
     * sign-in step sends its own.
     */
    async startPhoneEnrollment(request: {
      idToken: string
      phoneNumber: string
      captchaResponse?: string
    }): Promise<{ sessionInfo: string }> {
      return call({
        name: 'mfaEnrollmentStart',
        path: '/v2/accounts/mfaEnrollment:start',
        json: {
          idToken: request.idToken,
          phoneEnrollmentInfo: {
            phoneNumber: request.phoneNumber,
            ...(request.captchaResponse
              ? { captchaResponse: request.captchaResponse, clientType: CLIENT_TYPE, recaptchaVersion: RECAPTCHA_VERSION }
              : {}),
          },
        },
        schema: PhoneEnrollmentStartSchema,
      })
    },

    /** Adds the phone with the SMS code; the service answers new tokens (with the second-factor claim). */
    async finalizePhoneEnrollment(request: {
      idToken: string
      sessionInfo: string
      code: string
      displayName?: string
    }): Promise<MfaFinalizeResult> {
      return call({
        name: 'mfaEnrollmentFinalize',
        path: '/v2/accounts/mfaEnrollment:finalize',
        json: {
          idToken: request.idToken,
          phoneVerificationInfo: { sessionInfo: request.sessionInfo, code: request.code },
          ...(request.displayName ? { displayName: request.displayName } : {}),
        },
        schema: MfaFinalizeSchema,
      })
    },

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
