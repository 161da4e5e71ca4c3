import { z } from 'zod'

import { formText } from './form-text'
import { isTranslationKey } from './translator'
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH, type FieldErrors } from './limits'

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
