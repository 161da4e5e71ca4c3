import { z } from 'zod'
import { MfaFinalizeSchema, type MfaFinalizeResult } from './schemas'
import { CLIENT_TYPE, RECAPTCHA_VERSION, type Call } from './transport'

/**
 * Adding a phone as a second factor (`v2/accounts/mfaEnrollment:start` and `:finalize` with
 * `phoneEnrollmentInfo`), with the fresh ID token of "Confirm it's you" (ADR 036, ADR 042).
 */

/** mfaEnrollment:start for a phone: the session the SMS code is tied to. */
const PhoneEnrollmentStartSchema = z
  .object({ phoneSessionInfo: z.object({ sessionInfo: z.string().min(1) }) })
  .transform((r) => ({ sessionInfo: r.phoneSessionInfo.sessionInfo }))

export function phoneEnrollmentCalls(call: Call) {
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
  }
}
