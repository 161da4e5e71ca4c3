import { z } from 'zod'
import type { SecondFactor } from './errors'

const expiresIn = z.coerce.number().int().positive()

export const SignInSchema = z.object({
  idToken: z.string().min(1),
  refreshToken: z.string().min(1),
  expiresIn,
  localId: z.string().min(1),
  email: z.string().default(''),
})
export type SignInResult = z.output<typeof SignInSchema>

export const EmailLinkSchema = SignInSchema.extend({ isNewUser: z.boolean().default(false) })
export type EmailLinkSignInResult = z.output<typeof EmailLinkSchema>

export const IdpSchema = z
  .object({
    idToken: z.string().min(1),
    refreshToken: z.string().min(1),
    expiresIn,
    localId: z.string().min(1),
    email: z.string().optional(),
    emailVerified: z.boolean().default(false),
    providerId: z.string().optional(),
    federatedId: z.string().optional(),
    displayName: z.string().optional(),
    isNewUser: z.boolean().default(false),
    pendingToken: z.string().optional(),
    oauthIdToken: z.string().optional(),
    oauthAccessToken: z.string().optional(),
  })
  .transform(
    ({ email, providerId, federatedId, displayName, pendingToken, oauthIdToken, oauthAccessToken, ...rest }) => ({
      ...rest,
      email: email ?? null,
      providerId: providerId ?? null,
      federatedId: federatedId ?? null,
      displayName: displayName ?? null,
      pendingToken: pendingToken ?? null,
      oauthIdToken: oauthIdToken ?? null,
      oauthAccessToken: oauthAccessToken ?? null,
    }),
  )
export type IdpSignInResult = z.output<typeof IdpSchema>

/** Kinds the portal cannot ask for (passkeys, later kinds) are left out. */
const MfaEnrollmentSchema = z
  .object({
    mfaEnrollmentId: z.string().min(1),
    displayName: z.string().optional(),
    phoneInfo: z.string().optional(),
    totpInfo: z.object({}).passthrough().optional(),
  })
  .transform((e): SecondFactor | null => {
    const displayName = e.displayName?.trim() || null
    if (e.phoneInfo) return { kind: 'phone', id: e.mfaEnrollmentId, displayName, phone: e.phoneInfo }
    if (e.totpInfo) return { kind: 'totp', id: e.mfaEnrollmentId, displayName }
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
export type MfaFinalizeResult = z.output<typeof MfaFinalizeSchema>

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
    email: z.string().optional(),
    newEmail: z.string().optional(),
    mfaInfo: z.unknown().optional(),
  })
  .transform(({ requestType, email, newEmail, mfaInfo }) => ({
    requestType,
    email: email ?? null,
    newEmail: newEmail ?? null,
    secondFactor: factorsOf(Array.isArray(mfaInfo) ? mfaInfo : mfaInfo === undefined ? [] : [mfaInfo])[0] ?? null,
  }))
export type ActionCodeInfo = z.output<typeof ActionCodeSchema>

export const UpdateSchema = z
  .object({
    localId: z.string().optional(),
    email: z.string().optional(),
    emailVerified: z.boolean().default(false),
    idToken: z.string().optional(),
    refreshToken: z.string().optional(),
    expiresIn: expiresIn.optional(),
  })
  .transform(({ localId, email, emailVerified, idToken, refreshToken, expiresIn }) => ({
    localId: localId ?? null,
    email: email ?? null,
    emailVerified,
    tokens: idToken && refreshToken && expiresIn ? { idToken, refreshToken, expiresIn } : null,
  }))
export type UpdateResult = z.output<typeof UpdateSchema>

export const AuthUriSchema = z
  .object({
    authUri: z.string().optional(),
    sessionId: z.string().optional(),
    providerId: z.string().optional(),
    registered: z.boolean().default(false),
    signinMethods: z.array(z.string()).default([]),
  })
  .transform((r) => ({
    authUri: r.authUri ?? null,
    sessionId: r.sessionId ?? null,
    providerId: r.providerId ?? null,
    registered: r.registered,
    signinMethods: r.signinMethods,
  }))
export type AuthUriResult = z.output<typeof AuthUriSchema>

export const ProjectConfigSchema = z.object({
  projectId: z.string().optional(),
  authorizedDomains: z.array(z.string()).default([]),
})
export type ProjectConfig = z.output<typeof ProjectConfigSchema>

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

/** A `users` list without an entry means the account is gone. */
const millis = z.coerce.number().int().nonnegative()
export const LookupSchema = z
  .object({
    users: z
      .array(
        z.object({
          localId: z.string().min(1),
          email: z.string().optional(),
          emailVerified: z.boolean().default(false),
          displayName: z.string().optional(),
          providerUserInfo: z
            .array(z.object({ providerId: z.string().min(1), email: z.string().optional() }))
            .default([]),
          mfaInfo: z.array(z.unknown()).default([]),
          createdAt: millis.optional(),
          lastLoginAt: millis.optional(),
        }),
      )
      .default([]),
  })
  .transform(({ users }) => {
    const user = users[0]
    if (!user) return null
    return {
      localId: user.localId,
      email: user.email ?? null,
      emailVerified: user.emailVerified,
      displayName: user.displayName?.trim() || null,
      providers: user.providerUserInfo.map((p) => ({ providerId: p.providerId, email: p.email ?? null })),
      secondFactors: factorsOf(user.mfaInfo),
      createdAt: user.createdAt ?? null,
      lastLoginAt: user.lastLoginAt ?? null,
    }
  })
export type Account = NonNullable<z.output<typeof LookupSchema>>

export const PasswordChangeSchema = z.object({
  localId: z.string().min(1),
  idToken: z.string().min(1),
  refreshToken: z.string().min(1),
  expiresIn,
})
export type PasswordChangeResult = z.output<typeof PasswordChangeSchema>
