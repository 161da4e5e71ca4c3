import { useNavigation } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { EMAIL_MAX_LENGTH } from '~/lib/limits'
import { useEffect, useId, useRef, useState, type ChangeEvent, type InputHTMLAttributes, type ReactNode, type Ref, type RefObject } from 'react'

/** `passwordrules` is Apple's password-manager hint; React passes it through as written. */
type InputProps = InputHTMLAttributes<HTMLInputElement> & { name: string; passwordrules?: string }

/** A labelled input whose message is tied to it (aria-describedby) and announced. */
export function Field({
  label,
  error,
  hint,
  inputRef,
  ...input
}: { label: string; error?: string | null; hint?: ReactNode; inputRef?: Ref<HTMLInputElement> } & InputProps) {
  const id = useId()
  const errorId = `${id}-error`
  const hintId = `${id}-hint`
  const describedBy = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ') || undefined
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input ref={inputRef} id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
      {hint ? (
        <div id={hintId} className="field-hint">
          {hint}
        </div>
      ) : null}
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  )
}

/** The email field of every form: one label, type, autocomplete (password managers) and bound. */
export function EmailField({
  errorKey,
  ...input
}: { errorKey?: string | null; inputRef?: Ref<HTMLInputElement> } & Omit<InputProps, 'name'>) {
  const { t } = useTranslation()
  return (
    <Field
      label={t('signIn.email')}
      name="email"
      type="email"
      autoComplete="username"
      placeholder={t('signIn.emailPlaceholder')}
      required
      maxLength={EMAIL_MAX_LENGTH}
      error={errorKey ? t(errorKey as 'validation.emailRequired') : null}
      {...input}
    />
  )
}

/**
 * A form-level message. It is a live region, and gets focus when it appears so that
 * keyboard and screen-reader users land on it after a failed submission.
 */
export function FormAlert({ children, tone = 'error' }: { children: ReactNode; tone?: 'error' | 'success' | 'info' }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    ref.current?.focus()
  }, [children])
  return (
    <div ref={ref} className={`alert alert-${tone}`} role={tone === 'error' ? 'alert' : 'status'} tabIndex={-1}>
      {children}
    </div>
  )
}

/**
 * The submit button; while this form's submission is in flight it says so and stays put. A form
 * with a second submit button (`name="intent"`) is pending only on the button that was pressed.
 */
export function SubmitButton({ children, pendingLabel, action }: { children: ReactNode; pendingLabel: string; action?: string }) {
  const navigation = useNavigation()
  const pending =
    navigation.state === 'submitting' &&
    (action === undefined || navigation.formAction === action) &&
    !navigation.formData?.has('intent')
  return (
    <button type="submit" className="button-primary" aria-disabled={pending || undefined} data-pending={pending || undefined}>
      {pending ? pendingLabel : children}
    </button>
  )
}

/**
 * After a submission comes back (JavaScript on): empties the password fields, which must never
 * come back filled, and moves focus to the first invalid field when there is one.
 */
export function useAfterSubmission(form: RefObject<HTMLFormElement | null>, result: unknown) {
  useEffect(() => {
    if (!result || !form.current) return
    for (const input of form.current.querySelectorAll<HTMLInputElement>('input[type="password"]')) input.value = ''
    form.current.querySelector<HTMLInputElement>('[aria-invalid="true"]')?.focus()
  }, [form, result])
}

/**
 * The live value of an uncontrolled input, for what depends on it (a link, the password rules).
 * Uncontrolled, and read once at hydration, so that whatever the visitor typed or their password
 * manager filled in before the page's script ran is kept, not reset to the server's value.
 */
export function useFieldValue(initial = '') {
  const inputRef = useRef<HTMLInputElement>(null)
  const [value, setValue] = useState(initial)
  useEffect(() => {
    if (inputRef.current) setValue(inputRef.current.value)
  }, [])
  const onChange = (event: ChangeEvent<HTMLInputElement>) => setValue(event.currentTarget.value)
  return { value, setValue, field: { inputRef, defaultValue: initial, onChange } }
}
