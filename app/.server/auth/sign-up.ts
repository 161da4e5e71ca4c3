import type { AppLoadContext } from '~/.server/context'
import { getConfig } from '~/.server/config'
import { codeOf, getIdentity, type AuthCode } from '~/.server/identity'
import { logger } from '~/.server/ops/logger'
import { recordSignUp } from '~/.server/ops/metrics'
import { securityEvent } from '~/.server/ops/security-events'
import { refuseNewPassword, serverRuleState, type PasswordRefusal } from '~/.server/policy/common-passwords'
import { consumeSignUp, deviceIdFor } from '~/.server/policy/rate-limit'
import {
  captchaTokenMissing,
  captchaTokenToSend,
  isCaptchaRefusal,
  recordCaptchaOutcome,
  refreshAfterDemand,
} from '~/.server/policy/recaptcha'
import { page, redirectTo, type Result } from '~/.server/result'
import type { Locale, TranslationKey } from '~/lib/i18n'
import { emailProblem } from '~/lib/schemas'
import { continueUrlFor } from './continue-url'
import { sendProtectedOobCode } from './protected-email'

/**
 * "Create an account" (ADR 066). What the page answers never depends on whether the address has
 * an account: the checks on the response path judge only what was typed, the project's settings
 * and the limits; the identity service is asked off the response path, and its answer decides
 * only which email goes out (a verification for a new account, a reset for its owner).
 */

/** The form again: what was typed (never the password), why, and what the checklist says of the password. */
export interface SignUpRefusal {
  email: string
  emailError: TranslationKey | null
  rejection: PasswordRefusal | null
  formError: 'error.captchaNeedsJs' | 'signUp.turnedOff' | null
}

export interface SignUpInput {
  email: string
  password: string
  confirmation: string
  locale: Locale
  redirect: string | null
  /** Posted tokens: for signUpPassword, and for getOobCode (the owner's reset email). */
  captcha: { signUp?: string; reset?: string }
}

/** How long the project's refusal turns the form off; then the service is asked again. */
const TURNED_OFF_KEPT_MS = 5 * 60_000
const TURNED_OFF_CODES: readonly AuthCode[] = ['auth/operation-not-allowed', 'auth/admin-restricted-operation']
/** The address may have an account: EMAIL_EXISTS, or INVALID_LOGIN_CREDENTIALS (reported under protection). */
const EXISTS_CODES: readonly AuthCode[] = ['auth/email-already-in-use', 'auth/invalid-credential']
let turnedOffUntil = 0

export function signUpTurnedOff(): boolean {
  return Date.now() < turnedOffUntil
}

/** Judges the address and password, the captcha's presence and the limits; past them, one redirect for all. */
export async function requestSignUp(
  request: Request,
  input: SignUpInput,
  context: AppLoadContext,
): Promise<Result<SignUpRefusal>> {
  const refused = (fields: Partial<SignUpRefusal>, status: number) =>
    page<SignUpRefusal>(
      { email: input.email, emailError: null, rejection: null, formError: null, ...fields },
      { status },
    )
  if (signUpTurnedOff()) return refused({ formError: 'signUp.turnedOff' }, 403)

  const emailError = emailProblem(input.email)
  const policy = { minLength: getConfig().passwordMinLength, email: input.email }
  const rejection = await refuseNewPassword(input, policy)
  if (emailError || rejection) {
    const rules = input.password ? await serverRuleState(input.password, policy) : null
    return refused({ emailError, rejection: rejection ?? { passwordError: null, confirmationError: null, rules } }, 400)
  }
  if (captchaTokenMissing('signUpPassword', input.captcha.signUp)) {
    recordCaptchaOutcome('signUpPassword', false, 'auth/missing-recaptcha-token')
    return refused({ formError: 'error.captchaNeedsJs' }, 400)
  }

  // The redirect stays for the page's way back to sign-in, as the reset request's does.
  const sent = redirectTo(
    `/sign-up?${new URLSearchParams({ sent: '1', ...(input.redirect ? { redirect: input.redirect } : {}) })}`,
  )
  const device = deviceIdFor(request, input.email)
  const limit = await consumeSignUp({ ip: context.clientIp, email: input.email, device, reqId: context.requestId })
  if (!limit.ok) {
    recordSignUp('limited')
    if (getConfig().platform === 'local') {
      logger.warn(
        { event: 'sign-up-limited', reqId: context.requestId },
        'Sign-up NOT made: RATE_LIMIT_SIGN_UP_PER_IP, or the reset limits of the address (RATE_LIMIT_RESET_PER_EMAIL, _PER_DEVICE), were reached',
      )
    }
    return sent
  }
  securityEvent('sign-up-requested', { reqId: context.requestId, ip: context.clientIp, email: input.email })
  // Not even the service's first answer may land while this response is on its way (ADR 066).
  const afterResponse = context.afterResponse ?? setImmediate
  afterResponse(
    () =>
      void createAccount(input, context.requestId).catch((error: unknown) =>
        logger.error({ event: 'sign-up-failed', reqId: context.requestId, err: error }, 'sign-up failed'),
      ),
  )
  return sent
}

/** Off the response path: the account and its verification email, or the owner's reset email. */
async function createAccount(input: SignUpInput, reqId: string): Promise<void> {
  const token = captchaTokenToSend('signUpPassword', input.captcha.signUp)
  const continueUrl = continueUrlFor(input.redirect)
  let idToken: string
  try {
    ;({ idToken } = await getIdentity().signUp(input.email, input.password, { captchaResponse: token }))
  } catch (error) {
    const code = codeOf(error)
    recordCaptchaOutcome('signUpPassword', token !== undefined, code)
    if (EXISTS_CODES.includes(code)) return remindOwner(input, continueUrl, reqId)
    return notCreated(code, reqId)
  }
  recordCaptchaOutcome('signUpPassword', token !== undefined, null)
  recordSignUp('created')
  securityEvent('account-created', { reqId, email: input.email })
  try {
    await getIdentity().sendOobCode({ requestType: 'VERIFY_EMAIL', idToken, locale: input.locale, continueUrl })
  } catch (error) {
    // The account stands: its owner signs in and asks again from /account.
    logger.warn(
      { event: 'verification-email-failed', code: codeOf(error), reqId },
      'verification email not sent after sign-up',
    )
  }
}

/** Its owner gets the usual reset email (the sign-up counted in the reset limits already). */
function remindOwner(input: SignUpInput, continueUrl: string, reqId: string): void {
  recordSignUp('existing')
  sendProtectedOobCode(
    { requestType: 'PASSWORD_RESET', email: input.email, continueUrl, locale: input.locale },
    input.captcha.reset,
    (code, captcha) =>
      logger.warn(
        { event: 'sign-up-reset-failed', code, reqId, ...(captcha ? { captcha } : {}) },
        'reset email to an existing account not sent',
      ),
  )
}

/** Why no account was made, for the operator; the project's refusal turns the form off for a while. */
function notCreated(code: AuthCode, reqId: string): void {
  recordSignUp(code)
  if (TURNED_OFF_CODES.includes(code)) {
    turnedOffUntil = Date.now() + TURNED_OFF_KEPT_MS
    logger.warn(
      { event: 'sign-up-not-allowed', code, reqId },
      'the identity project refuses sign-ups: allow email/password sign-up and user sign-up there, or set FLAG_SIGN_UP=false (docs/sign-up.md)',
    )
    return
  }
  if (isCaptchaRefusal(code)) {
    logger.warn({ event: 'sign-up-failed', code, reqId, captcha: 'refused' }, 'sign-up refused by the reCAPTCHA check')
    void refreshAfterDemand('signUpPassword')
    return
  }
  const why =
    code === 'auth/weak-password'
      ? "the project's password policy is stricter than the portal's (PASSWORD_MIN_LENGTH): align them (docs/sign-up.md)"
      : 'account not created'
  logger.warn({ event: 'sign-up-failed', code, reqId }, why)
}
