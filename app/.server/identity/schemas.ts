import { z } from 'zod'
import type { SecondFactor } from './errors'

const expiresIn = z.coerce.number().int().positive()
/** A field the service may leave out, read as null. */
const orNull = <T extends z.ZodType>(schema: T) => schema.optional().transform((value) => value ?? null)
const optionalText = orNull(z.string())
const displayName = orNull(z.string().transform((name) => name.trim() || null))

const session = { idToken: z.string().min(1), refreshToken: z.string().min(1), expiresIn, localId: z.string().min(1) }

export const SignInSchema = z.object({ ...session, email: z.string().default('') })

export const EmailLinkSchema = SignInSchema.extend({ isNewUser: z.boolean().default(false) })

export const IdpSchema = z.object({
  ...session,
  email: optionalText,
  emailVerified: z.boolean().default(false),
  providerId: optionalText,
  federatedId: optionalText,
  displayName: optionalText,
  isNewUser: z.boolean().default(false),
  pendingToken: optionalText,
  oauthIdToken: optionalText,
  oauthAccessToken: optionalText,
})

/** Kinds the portal cannot ask for (passkeys, later kinds) are left out. */
const MfaEnrollmentSchema = z
  .object({
    mfaEnrollmentId: z.string().min(1),
    displayName,
    phoneInfo: z.string().optional(),
    totpInfo: z.object({}).passthrough().optional(),
  })
  .transform(({ mfaEnrollmentId: id, displayName, phoneInfo, totpInfo }): SecondFactor | null => {
    if (phoneInfo) return { kind: 'phone', id, displayName, phone: phoneInfo }
    if (totpInfo) return { kind: 'totp', id, displayName }
    return null
  })
export const MfaPendingSchema = z.object({
  mfaPendingCredential: z.string().min(1),
  mfaInfo: z.array(z.unknown()).default([]),
  email: z.string().optional(),
})
export function factorsOf(list: unknown[]): SecondFactor[] {
  return list.flatMap((item) => {
    const parsed = MfaEnrollmentSchema.safeParse(item)
    return parsed.success && parsed.data ? [parsed.data] : []
  })
}

export const MfaStartSchema = z
  .object({ phoneResponseInfo: z.object({ sessionInfo: z.string().min(1) }) })
  .transform((r) => ({ sessionInfo: r.phoneResponseInfo.sessionInfo }))

export const MfaFinalizeSchema = z.object({ idToken: z.string().min(1), refreshToken: z.string().min(1) })

export const ActionCodeSchema = z
  .object({
    requestType: z.enum([
      'PASSWORD_RESET',
      'VERIFY_EMAIL',
      'EMAIL_SIGNIN',
      'RECOVER_EMAIL',
      'VERIFY_AND_CHANGE_EMAIL',
      'REVERT_SECOND_FACTOR_ADDITION',
    ]),
    email: optionalText,
    newEmail: optionalText,
    mfaInfo: z.unknown().optional(),
  })
  .transform(({ mfaInfo, ...rest }) => ({
    ...rest,
    secondFactor: factorsOf(Array.isArray(mfaInfo) ? mfaInfo : mfaInfo === undefined ? [] : [mfaInfo])[0] ?? null,
  }))
export type ActionCodeInfo = z.output<typeof ActionCodeSchema>

export const UpdateSchema = z
  .object({
    localId: optionalText,
    email: optionalText,
    emailVerified: z.boolean().default(false),
    idToken: z.string().optional(),
    refreshToken: z.string().optional(),
    expiresIn: expiresIn.optional(),
  })
  .transform(({ idToken, refreshToken, expiresIn, ...rest }) => ({
    ...rest,
    tokens: idToken && refreshToken && expiresIn ? { idToken, refreshToken, expiresIn } : null,
  }))

export const AuthUriSchema = z.object({
  authUri: optionalText,
  sessionId: optionalText,
  providerId: optionalText,
  registered: z.boolean().default(false),
  signinMethods: z.array(z.string()).default([]),
})

export const ProjectConfigSchema = z.object({
  projectId: z.string().optional(),
  authorizedDomains: z.array(z.string()).default([]),
})

export type RecaptchaEnforcement = 'OFF' | 'AUDIT' | 'ENFORCE'
const enforcement = (state: string | undefined): RecaptchaEnforcement =>
  state === 'ENFORCE' || state === 'AUDIT' ? state : 'OFF'
export const RecaptchaSchema = z
  .object({
    recaptchaKey: z.string().optional(),
    recaptchaEnforcementState: z
      .array(z.object({ provider: z.string().optional(), enforcementState: z.string().optional() }))
      .default([]),
  })
  .transform((r) => {
    const stateOf = (provider: string) =>
      enforcement(r.recaptchaEnforcementState.find((s) => s.provider === provider)?.enforcementState)
    return {
      recaptchaKey: r.recaptchaKey ?? null,
      siteKey: r.recaptchaKey ? (r.recaptchaKey.split('/').pop() ?? null) : null,
      emailPassword: stateOf('EMAIL_PASSWORD_PROVIDER'),
      phone: stateOf('PHONE_PROVIDER'),
    }
  })
export type RecaptchaConfig = z.output<typeof RecaptchaSchema>
export const RECAPTCHA_OFF: RecaptchaConfig = { recaptchaKey: null, siteKey: null, emailPassword: 'OFF', phone: 'OFF' }

export const Empty = z.object({})

export const PasswordChangeSchema = z.object(session)
