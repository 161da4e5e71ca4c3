import { z } from 'zod'

import { formText } from './form-text'
import { isLocale, type Locale, type TranslationKey } from './i18n'
import { isTranslationKey } from './translator'
import { EMAIL_MAX_LENGTH, FACTOR_NAME_MAX_LENGTH, PASSWORD_MAX_LENGTH, type FieldErrors } from './limits'

/** Only server code imports this module, so zod stays out of the browser. */

const text = (value: unknown) => (typeof value === 'string' ? value : '')

export const EmailSchema = z.preprocess(
  (value) => text(value).trim(),
  z
    .string()
    .min(1, 'validation.emailRequired')
    .max(EMAIL_MAX_LENGTH, 'validation.emailTooLong')
    .pipe(z.email('validation.emailInvalid')),
)

/** A password as typed, never trimmed. */
export const PasswordSchema = z.preprocess(
  text,
  z.string().min(1, 'validation.passwordRequired').max(PASSWORD_MAX_LENGTH, 'validation.passwordRequired'),
)

export const ForgotPasswordFormSchema = z.object({ email: EmailSchema })

export const EmailChangeFormSchema = ForgotPasswordFormSchema

const loose = (max = Infinity) => z.preprocess((value) => text(value).slice(0, max), z.string())

const typedPassword = loose()

export const NewPasswordFormSchema = z.object({ password: typedPassword, confirmation: typedPassword })

const typedEmail = z.preprocess((value) => text(value).trim().slice(0, EMAIL_MAX_LENGTH), z.string())

/** Everything parses, so the page can name every problem at once. */
export const SignUpFormSchema = z.object({ email: typedEmail, password: typedPassword, confirmation: typedPassword })

export function emailProblem(email: string): TranslationKey | null {
  const parsed = ForgotPasswordFormSchema.safeParse({ email })
  return parsed.success ? null : (fieldErrorsOf(parsed.error).email ?? 'error.unexpected')
}

export const DeleteAccountFormSchema = z.object({ email: typedEmail })

export const EmailActionFormSchema = z.object({ email: typedEmail })

export const AccountFormSchema = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('verify') }),
  z.object({ intent: z.literal('resend') }),
  z.object({ intent: z.literal('end-session'), session: z.string().regex(/^[\w-]{43}$/) }),
])

export const ConfirmPasswordFormSchema = z.object({ password: PasswordSchema })

export const TotpFormSchema = z.object({
  code: loose(),
  name: loose(FACTOR_NAME_MAX_LENGTH),
})

export const RemoveFactorFormSchema = z.object({ factor: loose() })

export const PhoneFormSchema = z.object({
  intent: loose(),
  phone: loose(64),
  code: z.preprocess((value) => (value === undefined ? undefined : text(value).slice(0, 32)), z.string().optional()),
})

const checkbox = z.preprocess((value) => value !== undefined, z.boolean())

export const SecondFactorFormSchema = z.object({
  intent: loose(),
  factor: loose(),
  code: loose(32),
})

export const SsoStartFormSchema = z.object({
  intent: loose(),
  next: loose(),
  then: loose(),
  authDomain: loose(),
  remember: checkbox,
})

export const LogoutFormSchema = z.object({ intent: loose() })

export const PreferenceFormSchema = z.object({
  returnTo: z.preprocess((value) => (typeof value === 'string' ? value : undefined), z.string().optional()),
  inPlace: z.preprocess((value) => value === '1', z.boolean()),
})

export const LanguageFormSchema = PreferenceFormSchema.extend({ locale: z.custom<Locale>(isLocale) })

export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {}
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? 'form')
    // Every message above is a key; anything else reads as a failure.
    errors[field] ??= isTranslationKey(issue.message) ? issue.message : 'error.unexpected'
  }
  return errors
}

export { formText }
