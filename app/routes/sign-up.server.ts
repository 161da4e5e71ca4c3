import type { AppLoadContext } from '~/.server/context'
import { getConfig } from '~/.server/config'
import { codeOf, getIdentity, type AuthCode } from '~/.server/identity'
import { logger, securityEvent } from '~/.server/ops/logger'
import { metrics } from '~/.server/ops/metrics'
import { refuseNewPassword, serverRuleState, type PasswordRefusal } from '~/.server/policy/common-passwords'
import { deviceIdFor, getRateLimits } from '~/.server/policy/rate-limit'
import { captchaTokenMissing, isCaptchaRefusal } from '~/.server/identity/recaptcha'
import { page, redirectTo, type Result } from '~/.server/result'
import { rememberSent } from '~/.server/auth/email-sent'
import type { Locale, TranslationKey } from '~/lib/i18n'
import { emailProblem } from '~/lib/schemas'
import { continueUrlFor } from '~/.server/auth/continue-url'
import { sendProtectedOobCode } from '~/.server/auth/protected-email'
import { whoOf } from '~/.server/auth/session'

// The answer never depends on whether the address has an account: the service is asked
// off the response path, and its answer only picks which email goes out (see ADR 066).

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
  captcha: { signUp?: string; reset?: string }
}

const TURNED_OFF_KEPT_MS = 5 * 60_000
const TURNED_OFF_CODES: readonly AuthCode[] = ['auth/operation-not-allowed', 'auth/admin-restricted-operation']
/** INVALID_LOGIN_CREDENTIALS is how the service reports EMAIL_EXISTS under email enumeration protection. */
const EXISTS_CODES: readonly AuthCode[] = ['auth/email-already-in-use', 'auth/invalid-credential']
let turnedOffUntil = 0

export function signUpTurnedOff(): boolean {
  return Date.now() < turnedOffUntil
}

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
    return refused({ formError: 'error.captchaNeedsJs' }, 400)
  }

  const sent = redirectTo(
    `/sign-up?${new URLSearchParams({ sent: '1', ...(input.redirect ? { redirect: input.redirect } : {}) })}`,
    // The address as typed, for the page that says it went: written whether or not it has an account (ADR 083).
    { cookies: rememberSent(request, input.email, 'sign-up') },
  )
  const device = deviceIdFor(request, input.email)
  const limit = await getRateLimits().consumeSignUp({ ...whoOf(context), email: input.email, device })
  if (!limit.ok) {
    metrics.signUps.inc({ outcome: 'limited' })
    if (getConfig().platform === 'local') {
      logger.warn(
        { event: 'sign-up-limited', reqId: context.requestId },
        'Sign-up NOT made: RATE_LIMIT_SIGN_UP_PER_IP, or the reset limits of the address (RATE_LIMIT_RESET_PER_EMAIL, _PER_DEVICE), were reached',
      )
    }
    return sent
  }
  securityEvent('sign-up-requested', whoOf(context, input.email))
  // Not even the service's first answer may land while this response is on its way (see ADR 066).
  const afterResponse = context.afterResponse ?? setImmediate
  afterResponse(
    () =>
      void createAccount(input, context.requestId).catch((error: unknown) =>
        logger.error({ event: 'sign-up-failed', reqId: context.requestId, err: error }, 'sign-up failed'),
      ),
  )
  return sent
}

async function createAccount(input: SignUpInput, reqId: string): Promise<void> {
  const continueUrl = continueUrlFor(input.redirect)
  let idToken: string
  try {
    ;({ idToken } = await getIdentity().signUp(input.email, input.password, { captchaResponse: input.captcha.signUp }))
  } catch (error) {
    const code = codeOf(error)
    if (EXISTS_CODES.includes(code)) return remindOwner(input, continueUrl, reqId)
    return notCreated(code, reqId)
  }
  metrics.signUps.inc({ outcome: 'created' })
  securityEvent('account-created', { reqId, email: input.email })
  try {
    await getIdentity().sendOobCode({ requestType: 'VERIFY_EMAIL', idToken, locale: input.locale, continueUrl })
  } catch (error) {
    logger.warn(
      { event: 'verification-email-failed', code: codeOf(error), reqId },
      'verification email not sent after sign-up',
    )
  }
}

function remindOwner(input: SignUpInput, continueUrl: string, reqId: string): void {
  metrics.signUps.inc({ outcome: 'existing' })
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

function notCreated(code: AuthCode, reqId: string): void {
  metrics.signUps.inc({ outcome: code })
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
    return
  }
  const why =
    code === 'auth/weak-password'
      ? "the project's password policy is stricter than the portal's (PASSWORD_MIN_LENGTH): align them (docs/sign-up.md)"
      : 'account not created'
  logger.warn({ event: 'sign-up-failed', code, reqId }, why)
}
