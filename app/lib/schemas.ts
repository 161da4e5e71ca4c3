import { z } from 'zod'

import { formText } from './form-text'
import { isLocale, type Locale, type TranslationKey } from './i18n'
import { isTranslationKey } from './translator'
import { EMAIL_MAX_LENGTH, FACTOR_NAME_MAX_LENGTH, PASSWORD_MAX_LENGTH, type FieldErrors } from './limits'

/**
 * The forms' shared schemas: the actions parse with them. Messages are translation keys.
 * Lengths bound hostile input (./limits). Only server code imports this module (actions, through
 * parseForm in app/.server/result.ts): zod stays out of the browser.
 */

const text = (value: unknown) => (typeof value === 'string' ? value : '')

export const EmailSchema = z.preprocess(
  (value) => text(value).trim(),
  z
    .string()
    .min(1, 'validation.emailRequired')
    .max(EMAIL_MAX_LENGTH, 'validation.emailTooLong')
    .pipe(z.email('validation.emailInvalid')),
)

export const SignInFormSchema = z.object({
  email: EmailSchema,
  password: z.preprocess(
    text,
    z.string().min(1, 'validation.passwordRequired').max(PASSWORD_MAX_LENGTH, 'validation.passwordRequired'),
  ),
})

export const ForgotPasswordFormSchema = z.object({ email: EmailSchema })

/** The new address of "Change email": an address like any other. */
export const EmailChangeFormSchema = ForgotPasswordFormSchema

/** A field as text whatever was posted (absent, or a file: ''), cut to `max`: never refused. */
const loose = (max = Infinity) => z.preprocess((value) => text(value).slice(0, max), z.string())

/** A password as typed: the password policy judges it, with its own messages (refuseNewPassword). */
const typedPassword = loose()

/** A new password and its confirmation (/new-password, /account/password). */
export const NewPasswordFormSchema = z.object({ password: typedPassword, confirmation: typedPassword })

/** An address typed again, trimmed and bounded, compared by the flow rather than validated here. */
const typedEmail = z.preprocess((value) => text(value).trim().slice(0, EMAIL_MAX_LENGTH), z.string())

/**
 * "Create an account": everything parses, so that the flow judges the address (emailProblem) and
 * the password (the password policy) together and the page names every problem at once.
 */
export const SignUpFormSchema = z.object({ email: typedEmail, password: typedPassword, confirmation: typedPassword })

/** What is wrong with an address as typed, as the other forms say it; null when nothing is. */
export function emailProblem(email: string): TranslationKey | null {
  const parsed = ForgotPasswordFormSchema.safeParse({ email })
  return parsed.success ? null : (fieldErrorsOf(parsed.error).email ?? 'error.unexpected')
}

/** "Delete account": the account's address typed again; a mismatch is the flow's to say. */
export const DeleteAccountFormSchema = z.object({ email: typedEmail })

/** 'Continue' on an emailed link: the address typed for a sign-in link opened on another device, if any. */
export const EmailActionFormSchema = z.object({ email: typedEmail })

/** "Send verification email", the account page's one form. */
/** The account page's own buttons: "Send verification email", and "End session" on another browser (its record's key). */
export const AccountFormSchema = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('verify') }),
  z.object({ intent: z.literal('end-session'), session: z.string().regex(/^[\w-]{43}$/) }),
])

/** "Confirm it's you": the signed-in account's password, as sign-in reads it. */
export const ConfirmPasswordFormSchema = SignInFormSchema.pick({ password: true })

/** An authenticator app's code, whose format the enrolment decides, and the name it is given. */
export const TotpFormSchema = z.object({
  code: loose(),
  name: loose(FACTOR_NAME_MAX_LENGTH),
})

/** The second factor to remove: its enrolment id, which the service checks. */
export const RemoveFactorFormSchema = z.object({ factor: loose() })

/**
 * The phone enrolment's forms: the number (bounded; the flow reads it as E.164), the SMS code,
 * present on the code's form only, and the intent "Resend code" and "Use another number" name.
 */
export const PhoneFormSchema = z.object({
  intent: loose(),
  phone: loose(64),
  code: z.preprocess((value) => (value === undefined ? undefined : text(value).slice(0, 32)), z.string().optional()),
})

/** A checkbox: on when it was posted at all. */
const checkbox = z.preprocess((value) => value !== undefined, z.boolean())

/** The second-factor step's buttons: choose, another method, resend, or verify a code. */
export const SecondFactorFormSchema = z.object({
  intent: loose(),
  factor: loose(),
  code: loose(32),
  captchaResponse: loose(4096),
})

/** Single sign-on's start: from the sign-in form, or "Confirm it's you" (`intent=confirm`, `next`, `then`). */
export const SsoStartFormSchema = z.object({
  intent: loose(),
  next: loose(),
  then: loose(),
  // Absent and empty differ: the redirect policy answers each its own way.
  redirect: z.preprocess((value) => (value === undefined ? null : text(value)), z.string().nullable()),
  authDomain: loose(),
  remember: checkbox,
})

/** "Log out", or "Log out of all devices" (`intent=everywhere`). */
export const LogoutFormSchema = z.object({ intent: loose() })

/** A preference's post: the page to come back to, or `inPlace=1` for a fetcher that stays. */
export const PreferenceFormSchema = z.object({
  returnTo: z.preprocess((value) => (typeof value === 'string' ? value : undefined), z.string().optional()),
  inPlace: z.preprocess((value) => value === '1', z.boolean()),
})

export const LanguageFormSchema = PreferenceFormSchema.extend({ locale: z.custom<Locale>(isLocale) })

/** The first message per field, as translation keys. */
export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {}
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? 'form')
    // Every message above is a key; anything else (none is expected) reads as a failure.
    errors[field] ??= isTranslationKey(issue.message) ? issue.message : 'error.unexpected'
  }
  return errors
}

/** The address as typed, trimmed and bounded, to show again in the form that comes back. */
export function keptEmail(form: FormData): string {
  return formText(form, 'email').trim().slice(0, EMAIL_MAX_LENGTH)
}

export { formText }
