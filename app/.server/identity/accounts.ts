import {
  ActionCodeSchema,
  EmailLinkSchema,
  Empty,
  SignInSchema,
  UpdateSchema,
  type ActionCodeInfo,
  type EmailLinkSignInResult,
  type SignInResult,
  type UpdateResult,
} from './schemas'
import { CLIENT_TYPE, captcha, type Call } from './transport'

/**
 * The `v1/accounts:*` calls of a password account and of emailed codes: creating one, sign-in with
 * a password or an email link, sending a code, checking and spending a reset code, updating the account.
 */

type OobRequestType = 'PASSWORD_RESET' | 'EMAIL_SIGNIN' | 'VERIFY_EMAIL' | 'VERIFY_AND_CHANGE_EMAIL'

export interface SendOobCodeRequest {
  requestType: OobRequestType
  /** PASSWORD_RESET and EMAIL_SIGNIN */
  email?: string
  /** VERIFY_EMAIL and VERIFY_AND_CHANGE_EMAIL */
  idToken?: string
  /** VERIFY_AND_CHANGE_EMAIL */
  newEmail?: string
  continueUrl?: string
  /** The visitor's language (e.g. `fr`), sent as X-Firebase-Locale; ignored unless a language tag. */
  locale?: string
  /** A reCAPTCHA Enterprise token, when the project enforces it. */
  captchaResponse?: string
}

interface UpdateRequest {
  idToken?: string
  /** Confirms a VERIFY_EMAIL / VERIFY_AND_CHANGE_EMAIL / RECOVER_EMAIL code. */
  oobCode?: string
  email?: string
  password?: string
  displayName?: string
  /** New tokens in the answer (the old ones stop working after a password or email change). Default: with idToken. */
  returnSecureToken?: boolean
}

/** An address and its password as a sign-in and a sign-up send them, with the reCAPTCHA token when one is due. */
const withPassword = (email: string, password: string, captchaResponse: string | undefined) => ({
  email,
  password,
  returnSecureToken: true,
  clientType: CLIENT_TYPE,
  ...captcha('captchaResponse', captchaResponse),
})

/** Checks a code, or spends a PASSWORD_RESET one (with a new password). */
const RESET = '/v1/accounts:resetPassword'

export function accountCalls(call: Call) {
  return {
    async signInWithPassword(
      email: string,
      password: string,
      extra: { captchaResponse?: string } = {},
    ): Promise<SignInResult> {
      return call({
        name: 'signInWithPassword',
        path: '/v1/accounts:signInWithPassword',
        json: withPassword(email, password, extra.captchaResponse),
        schema: SignInSchema,
      })
    },

    /** Creates a password account (reCAPTCHA action signUpPassword); answers its first tokens, as a sign-in does. */
    async signUp(email: string, password: string, extra: { captchaResponse?: string } = {}): Promise<SignInResult> {
      return call({
        name: 'signUp',
        path: '/v1/accounts:signUp',
        json: withPassword(email, password, extra.captchaResponse),
        schema: SignInSchema,
      })
    },

    /** Sends an email with a code: PASSWORD_RESET, EMAIL_SIGNIN, VERIFY_EMAIL, VERIFY_AND_CHANGE_EMAIL. */
    async sendOobCode(request: SendOobCodeRequest): Promise<void> {
      const { requestType, email, idToken, newEmail, continueUrl, locale, captchaResponse } = request
      const protectedFlow = requestType === 'PASSWORD_RESET' || requestType === 'EMAIL_SIGNIN'
      await call({
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
          ...(protectedFlow ? { clientType: CLIENT_TYPE, ...captcha('captchaResp', captchaResponse) } : {}),
        },
        schema: Empty,
      })
    },

    /** Checks a code without spending it. */
    checkActionCode: (oobCode: string): Promise<ActionCodeInfo> =>
      call({ name: 'checkActionCode', path: RESET, read: true, json: { oobCode }, schema: ActionCodeSchema }),

    /** Spends a PASSWORD_RESET code. */
    resetPassword: (oobCode: string, newPassword: string): Promise<ActionCodeInfo> =>
      call({ name: 'resetPassword', path: RESET, json: { oobCode, newPassword }, schema: ActionCodeSchema }),

    update: (request: UpdateRequest): Promise<UpdateResult> =>
      call({
        name: 'update',
        path: '/v1/accounts:update',
        json: { ...request, returnSecureToken: request.returnSecureToken ?? Boolean(request.idToken) },
        schema: UpdateSchema,
      }),

    signInWithEmailLink: (email: string, oobCode: string): Promise<EmailLinkSignInResult> =>
      call({
        name: 'signInWithEmailLink',
        path: '/v1/accounts:signInWithEmailLink',
        json: { email, oobCode },
        schema: EmailLinkSchema,
      }),
  }
}

function isLanguageTag(value: string): boolean {
  return value.length <= 35 && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(value)
}
