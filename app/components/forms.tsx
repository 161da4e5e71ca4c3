import { useNavigation } from 'react-router'
import { useTranslation } from 'react-i18next'
import type { TranslationKey } from '~/lib/i18n'
import { EMAIL_MAX_LENGTH } from '~/lib/limits'
import {
  useEffect,
  useId,
  useImperativeHandle,
  useRef,
  useState,
  type ChangeEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type Ref,
  type RefObject,
} from 'react'
import { flushSync } from 'react-dom'

/** `passwordrules` is Apple's password-manager hint; React passes it through as written. */
type InputProps = InputHTMLAttributes<HTMLInputElement> & { name: string; passwordrules?: string }

/** A labelled input whose message, right under it, is tied to it (aria-describedby, aria-invalid); its hint comes after. */
export function Field({
  label,
  error,
  hint,
  inputRef,
  ...input
}: { label: ReactNode; error?: string | null; hint?: ReactNode; inputRef?: Ref<HTMLInputElement> } & InputProps) {
  const id = useId()
  const errorId = `${id}-error`
  const hintId = `${id}-hint`
  const describedBy = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ') || undefined
  const Input = input.type === 'password' ? PasswordInput : 'input'
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>{' '}
      <Input ref={inputRef} id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
      {hint ? (
        <div id={hintId} className="field-hint">
          {hint}
        </div>
      ) : null}
    </div>
  )
}

/**
 * A password input with a show-password toggle. The toggle is rendered only once the page is
 * hydrated: without JavaScript the field is a plain password input, as before.
 *
 * Screen readers: the button keeps one name, 'Show password', and says whether it is on with
 * aria-pressed ('Show password, toggle button, pressed'). A name that switched to 'Hide password'
 * on top of aria-pressed would be read as 'Hide password, pressed', which contradicts itself; the
 * ARIA practices ask for a toggle's name not to change with its state.
 *
 * It never submits (type="button"), keeps the value (the input stays the same element, only its
 * type changes) and the caret or selection (put back after the change). A pointer press does not
 * take the focus from the field, so typing goes on; from the keyboard the focus stays on the button.
 * When the form is sent the password is hidden again: it never leaves the page as a text field (which
 * a browser may remember), and what empties password fields after a submission still finds it.
 */
function PasswordInput({ ref, ...input }: { ref?: Ref<HTMLInputElement> } & InputProps) {
  const { t } = useTranslation()
  const own = useRef<HTMLInputElement>(null)
  // The caller's ref gets the same element.
  useImperativeHandle(ref, () => own.current!, [])
  const [hydrated, setHydrated] = useState(false)
  const [shown, setShown] = useState(false)
  useEffect(() => setHydrated(true), [])
  useEffect(() => {
    const form = own.current?.form
    if (!form) return
    const hide = () => setShown(false)
    form.addEventListener('submit', hide)
    return () => form.removeEventListener('submit', hide)
  }, [])
  const toggle = () => {
    const field = own.current
    const [start, end, direction] = [field?.selectionStart, field?.selectionEnd, field?.selectionDirection]
    flushSync(() => setShown((value) => !value))
    if (field && start != null && end != null) field.setSelectionRange(start, end, direction ?? undefined)
  }
  return (
    <div className="password-input" data-toggle={hydrated || undefined}>
      <input ref={own} {...input} type={shown ? 'text' : 'password'} />
      {hydrated ? (
        <button
          type="button"
          className="password-toggle"
          aria-pressed={shown}
          aria-controls={input.id}
          onMouseDown={(event) => event.preventDefault()}
          onClick={toggle}
        >
          <span className="visually-hidden">{t('passwordToggle.show')}</span>
          <svg aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="20" height="20">
            <path d="M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z" />
            <circle cx="12" cy="12" r="3" />
            {shown ? <path d="M4 4l16 16" /> : null}
          </svg>
        </button>
      ) : null}
    </div>
  )
}

/** The email field of every form: one label, type, autocomplete (password managers) and bound. */
export function EmailField({
  errorKey,
  ...input
}: { errorKey?: TranslationKey | null; inputRef?: Ref<HTMLInputElement> } & Omit<InputProps, 'name'>) {
  const { t } = useTranslation()
  return (
    <Field
      label={t('signIn.email')}
      placeholder={t('signIn.emailPlaceholder')}
      error={errorKey ? t(errorKey) : null}
      name="email"
      type="email"
      autoComplete="username"
      required
      maxLength={EMAIL_MAX_LENGTH}
      {...input}
    />
  )
}

/**
 * A form-level message. It is a live region, and gets focus when it appears or says something else, so that
 * keyboard and screen-reader users land on it after a failed submission; not when the page around it re-renders.
 */
export function FormAlert({ children, tone = 'error' }: { children: ReactNode; tone?: 'error' | 'success' | 'info' }) {
  const ref = useRef<HTMLDivElement>(null)
  const said = useRef<string | null>(null)
  useEffect(() => {
    const text = ref.current?.textContent ?? null
    if (text === said.current) return
    said.current = text
    ref.current?.focus()
  })
  return (
    <div ref={ref} className={`alert alert-${tone}`} role={tone === 'error' ? 'alert' : 'status'} tabIndex={-1}>
      {children}
    </div>
  )
}

/** The submit button, saying so while in flight (not while an `intent` button's post is); `danger`: can't be undone. */
export function SubmitButton({
  children,
  pendingLabel,
  danger,
}: {
  children: ReactNode
  pendingLabel: string
  danger?: boolean
}) {
  const navigation = useNavigation()
  const pending = navigation.state === 'submitting' && !navigation.formData?.has('intent')
  return (
    <button
      type="submit"
      className={danger ? 'button-primary button-danger' : 'button-primary'}
      aria-disabled={pending || undefined}
      data-pending={pending || undefined}
    >
      {pending ? pendingLabel : children}
    </button>
  )
}

/**
 * After a submission comes back (JavaScript on): empties the password fields, which must never
 * come back filled, and moves focus to the first invalid field when there is one. `keepPasswords`
 * leaves them as typed (a rejected new password is corrected, not typed again twice; the server
 * sent nothing back into them).
 */
export function useAfterSubmission(form: RefObject<HTMLFormElement | null>, result: unknown, keepPasswords = false) {
  useEffect(() => {
    if (!result || !form.current) return
    if (!keepPasswords) {
      for (const input of form.current.querySelectorAll<HTMLInputElement>('input[type="password"]')) input.value = ''
    }
    form.current.querySelector<HTMLInputElement>('[aria-invalid="true"]')?.focus()
  }, [form, result, keepPasswords])
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
