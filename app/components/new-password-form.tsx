import { useEffect, useRef, useState, type FormEvent, type ReactNode, type RefObject } from 'react'
import { flushSync } from 'react-dom'
import { useTranslation } from 'react-i18next'
import { Field, SubmitButton, useAfterSubmission, useFieldValue } from '~/components/forms'
import { PasswordRules } from '~/components/password-rules'
import { SecureForm } from '~/components/secure-form'
import { formText } from '~/lib/form-text'
import type { TranslationKey } from '~/lib/i18n'
import { PASSWORD_MAX_LENGTH } from '~/lib/limits'
import {
  newPasswordProblems,
  passwordRulesAttribute,
  type NewPasswordProblems,
  type NewPasswordRejection,
} from '~/lib/password-policy'

const NO_PROBLEMS = { passwordError: null, confirmationError: null } as const

/** What the form's fields and button say; a new account's password (/sign-up) is worded as such. */
export type PasswordFormLabels = Record<'password' | 'confirm' | 'submit' | 'pending', TranslationKey>

const NEW_PASSWORD_LABELS: PasswordFormLabels = {
  password: 'newPassword.password',
  confirm: 'newPassword.confirm',
  submit: 'newPassword.submit',
  pending: 'newPassword.pending',
}

/**
 * The one form that sets a new password (/new-password with an emailed link, /account/password
 * signed in, /sign-up for a new account): the same rules and live checklist on all. With
 * JavaScript the shared rules are checked before sending and a refused password stays in both
 * fields to be corrected; without it the server's answer (`rejection`) names in the checklist each
 * rule the password missed.
 */
export function NewPasswordForm({
  email,
  minLength,
  result,
  rejection,
  labels = NEW_PASSWORD_LABELS,
  fields = null,
  formRef: givenRef,
  onChecked,
}: {
  /** The account's address: for password managers and for the rule against using it. */
  email: string
  minLength: number
  /** The action's latest answer, whatever it says: a new one replaces what the page checked. */
  result: unknown
  /** The server's refusal of this password, when that is what the answer was. */
  rejection: NewPasswordRejection | null
  labels?: PasswordFormLabels
  /** Fields before the password (/sign-up: the address typed), in place of the hidden username. */
  fields?: ReactNode
  formRef?: RefObject<HTMLFormElement | null>
  /** Called once the shared rules pass, with the submit event (a captcha's token is asked there). */
  onChecked?: (event: FormEvent<HTMLFormElement>) => void
}) {
  const { t } = useTranslation()
  const { value: password, setValue: setPassword, field: passwordField } = useFieldValue()
  const ownRef = useRef<HTMLFormElement>(null)
  const formRef = givenRef ?? ownRef
  const confirmationRef = useRef<HTMLInputElement>(null)
  // What the page found wrong before sending (JavaScript on); a newer answer of the server replaces it.
  const [checked, setChecked] = useState<NewPasswordProblems | null>(null)
  // The password last sent: while the field still holds it, the checklist shows the server's judgement of it.
  const [sent, setSent] = useState<string | null>(null)
  // A rejected password stays in both fields, to be corrected; any other answer empties them.
  const rejected = rejection !== null
  useAfterSubmission(formRef, result, rejected)
  useEffect(() => {
    setChecked(null)
    if (result && !rejected) setPassword('')
  }, [result, rejected, setPassword])

  const { passwordError, confirmationError } = checked ?? rejection ?? NO_PROBLEMS
  const judged = rejection?.rules && (!password || password === sent) ? rejection.rules : null

  /** The shared rules, checked before sending: a broken one is said under its field, which gets the focus. */
  const checkBeforeSending = (event: FormEvent<HTMLFormElement>) => {
    const form = new FormData(event.currentTarget)
    const problems = newPasswordProblems(
      { password: formText(form, 'password'), confirmation: formText(form, 'confirmation') },
      { minLength, email },
    )
    if (!problems.passwordError && !problems.confirmationError) {
      setSent(formText(form, 'password'))
      setChecked(null)
      return onChecked?.(event)
    }
    event.preventDefault()
    // Rendered first, so that the focused field is announced with its new message.
    flushSync(() => setChecked(problems))
    ;(problems.passwordError ? passwordField.inputRef.current : confirmationRef.current)?.focus()
  }
  return (
    <SecureForm ref={formRef} className="stack" noValidate onSubmit={checkBeforeSending}>
      {/* Lets password managers save the new password under the right account. */}
      {fields ?? <input type="text" name="username" autoComplete="username" value={email} readOnly hidden />}
      <Field
        label={t(labels.password)}
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={minLength}
        maxLength={PASSWORD_MAX_LENGTH}
        passwordrules={passwordRulesAttribute(minLength)}
        {...passwordField}
        error={
          passwordError
            ? t(passwordError, { count: passwordError === 'newPassword.tooLong' ? PASSWORD_MAX_LENGTH : minLength })
            : null
        }
        hint={<PasswordRules id="password-rules" password={password} minLength={minLength} email={email} judged={judged} />}
      />
      <Field
        label={t(labels.confirm)}
        inputRef={confirmationRef}
        name="confirmation"
        type="password"
        autoComplete="new-password"
        required
        maxLength={PASSWORD_MAX_LENGTH}
        error={confirmationError ? t(confirmationError) : null}
      />
      <SubmitButton pendingLabel={t(labels.pending)}>{t(labels.submit)}</SubmitButton>
    </SecureForm>
  )
}
