import { getConfig } from '~/.server/config'
import { mfaCalls } from './mfa'
import { passkeyCalls } from './passkeys'
import { projectCalls } from './project'
import { providerCalls } from './providers'
import { signedInCalls } from './signed-in'
import { withCaptcha } from './recaptcha'
import { CLIENT_TYPE, captcha, createTransport, type IdentityClientOptions } from './transport'
import type { CaptchaAction } from '~/lib/recaptcha'
import { ActionCodeSchema, EmailLinkSchema, Empty, SignInSchema, UpdateSchema, type ActionCodeInfo } from './schemas'

export interface SendOobCodeRequest {
  requestType: 'PASSWORD_RESET' | 'EMAIL_SIGNIN' | 'VERIFY_EMAIL' | 'VERIFY_AND_CHANGE_EMAIL'
  email?: string
  idToken?: string
  newEmail?: string
  continueUrl?: string
  locale?: string
  captchaResponse?: string
}

const withPassword = (email: string, password: string, captchaResponse: string | undefined) => ({
  email,
  password,
  returnSecureToken: true,
  clientType: CLIENT_TYPE,
  ...captcha('captchaResponse', captchaResponse),
})

const RESET = '/v1/accounts:resetPassword'

/** Sends a call that reCAPTCHA protects with the posted token, while the project enforces it (recaptcha.ts). */
export type Protect = <T>(action: CaptchaAction, posted: string | undefined, send: (token: string | undefined) => Promise<T>) => Promise<T>

/**
 * The identity service's REST API (Identity Toolkit): the account calls are written here, the others
 * in a module per group.
 */
export function createIdentityClient(options: IdentityClientOptions) {
  const { call, bounded, close } = createTransport(options)
  const project = projectCalls(call, options)
  const protect: Protect = (action, posted, send) => withCaptcha(action, posted, send, project.getRecaptchaConfig)
  return {
    signInWithPassword: (email: string, password: string, extra: { captchaResponse?: string } = {}) =>
      protect('signInWithPassword', extra.captchaResponse, (token) =>
        call({
          name: 'signInWithPassword',
          path: '/v1/accounts:signInWithPassword',
          json: withPassword(email, password, token),
          schema: SignInSchema,
        }),
      ),

    signUp: (email: string, password: string, extra: { captchaResponse?: string } = {}) =>
      protect('signUpPassword', extra.captchaResponse, (token) =>
        call({ name: 'signUp', path: '/v1/accounts:signUp', json: withPassword(email, password, token), schema: SignInSchema }),
      ),

    async sendOobCode(request: SendOobCodeRequest): Promise<void> {
      const { requestType, email, idToken, newEmail, continueUrl, locale, captchaResponse } = request
      const protectedFlow = requestType === 'PASSWORD_RESET' || requestType === 'EMAIL_SIGNIN'
      const send = (token: string | undefined) =>
        call({
          name: 'sendOobCode',
          path: '/v1/accounts:sendOobCode',
          headers: locale && isLanguageTag(locale) ? { 'X-Firebase-Locale': locale } : {},
          json: {
            requestType,
            email,
            idToken,
            newEmail,
            continueUrl,
            ...(requestType === 'EMAIL_SIGNIN' ? { canHandleCodeInApp: true } : {}),
            ...(protectedFlow ? { clientType: CLIENT_TYPE, ...captcha('captchaResp', token) } : {}),
          },
          schema: Empty,
        })
      await (protectedFlow ? protect('getOobCode', captchaResponse, send) : send(undefined))
    },

    checkActionCode: (oobCode: string): Promise<ActionCodeInfo> =>
      call({ name: 'checkActionCode', path: RESET, read: true, json: { oobCode }, schema: ActionCodeSchema }),

    resetPassword: (oobCode: string, newPassword: string): Promise<ActionCodeInfo> =>
      call({ name: 'resetPassword', path: RESET, json: { oobCode, newPassword }, schema: ActionCodeSchema }),

    update: (request: { idToken?: string; oobCode?: string; password?: string }) =>
      call({
        name: 'update',
        path: '/v1/accounts:update',
        // A password change ends the old tokens: new ones are asked for.
        json: { ...request, returnSecureToken: Boolean(request.idToken) },
        schema: UpdateSchema,
      }),

    signInWithEmailLink: (email: string, oobCode: string) =>
      call({
        name: 'signInWithEmailLink',
        path: '/v1/accounts:signInWithEmailLink',
        json: { email, oobCode },
        schema: EmailLinkSchema,
      }),

    ...signedInCalls(call),
    ...providerCalls(call),
    ...mfaCalls(call, protect),
    ...passkeyCalls(call, options),
    ...project,
    bounded,
    close,
  }
}

export type IdentityClient = ReturnType<typeof createIdentityClient>

let identity: IdentityClient | undefined

export function getIdentity(): IdentityClient {
  identity ??= createIdentityClient(getConfig().identity)
  return identity
}

export type { CredentialJson } from './passkeys'
export type { MfaConfig } from './project'
export type { ActionCodeInfo, RecaptchaConfig, RecaptchaEnforcement } from './schemas'
export { parseAuthDomain } from './auth-domain'
export {
  IdentityError,
  authCodeFor,
  codeOf,
  isIdentityError,
  mfaRequiredOf,
  type MfaRequired,
  type SecondFactor,
  groupOf,
  isLinkFailure,
  type AuthCode,
  type CodeGroup,
} from './errors'

function isLanguageTag(value: string): boolean {
  return value.length <= 35 && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(value)
}

export const RECENT_SIGN_IN_SECONDS = 5 * 60

type TokenClaims = { uid: string | null; email: string | null; authTime: number | null; secondFactor: string | null }
type Payload = { sub?: unknown; email?: unknown; auth_time?: unknown; firebase?: { sign_in_second_factor?: unknown } }

/** What an ID token says. Not verified here: only for an ID token that just came from the identity service. */
export function tokenClaims(idToken: string): TokenClaims {
  const none = { uid: null, email: null, authTime: null, secondFactor: null }
  const payload = idToken.split('.')[1]
  if (!payload) return none
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Payload
    const factor = claims.firebase?.sign_in_second_factor
    return {
      uid: typeof claims.sub === 'string' && claims.sub ? claims.sub : null,
      email: typeof claims.email === 'string' ? claims.email : null,
      authTime: typeof claims.auth_time === 'number' ? claims.auth_time : null,
      secondFactor: typeof factor === 'string' && factor ? factor : null,
    }
  } catch {
    return none
  }
}

export function isRecentSignIn(authTime: number | null): authTime is number {
  return authTime !== null && Date.now() / 1000 - authTime <= RECENT_SIGN_IN_SECONDS
}

export const recentUntil = (idToken: string, seconds: number) => ((tokenClaims(idToken).authTime ?? 0) + seconds) * 1000
