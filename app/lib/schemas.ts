import { z } from 'zod'

import { formText } from './form-text'
import { isLocale, type Locale } from './i18n'
import { isTranslationKey } from './translator'
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH, type FieldErrors } from './limits'

/**
 * The forms' shared schemas: the actions parse with them. Messages are translation keys.
 * Lengths bound hostile input (./limits). Only actions import this module: zod stays on the server.
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

/** A field as text whatever was posted (absent, or a file: ''), cut to `max`: never refused. */
const loose = (max = Infinity) => z.preprocess((value) => text(value).slice(0, max), z.string())
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
