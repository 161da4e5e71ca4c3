import { useEffect, useId, useState, type FormEventHandler, type ReactNode, type Ref } from 'react'
import { useTranslation } from 'react-i18next'
import { SecureForm } from './secure-form'

/**
 * 'Resend code', lighter than 'Verify'. During its cooldown it is marked unavailable and says how
 * long is left: the server's figure, counted down each second with JavaScript, and counted again
 * from each new code's figure (`sentAt` tells them apart: two codes can leave the same figure).
 * Without JavaScript the figure is the page's and the button still posts: the server sends, or asks to wait.
 * It posts `intent=resend` to the page's own action (the sign-in step, the phone enrolment, and,
 * with `email`, "Send the email again" on /forgot-password with its `children`, hidden fields).
 */
export function ResendForm({
  resendIn,
  sentAt,
  onSubmit,
  formRef,
  email = false,
  children,
}: {
  resendIn: number
  /** When the server sent the code that the wait follows. */
  sentAt: number | null
  /** Where the page protects its SMS with reCAPTCHA: gets the token first (useCaptchaForm). */
  onSubmit?: FormEventHandler<HTMLFormElement>
  formRef?: Ref<HTMLFormElement>
  /** An email, not an SMS code: its own words. */
  email?: boolean
  children?: ReactNode
}) {
  const { t } = useTranslation()
  const waitId = useId()
  const [left, setLeft] = useState(resendIn)
  useEffect(() => {
    setLeft(resendIn)
    if (resendIn <= 0) return
    const end = Date.now() + resendIn * 1000
    const timer = setInterval(() => {
      const rest = Math.max(0, Math.ceil((end - Date.now()) / 1000))
      setLeft(rest)
      if (rest === 0) clearInterval(timer)
    }, 1000)
    return () => clearInterval(timer)
  }, [resendIn, sentAt])
  const waiting = left > 0
  return (
    <SecureForm ref={formRef} className="stack resend" onSubmit={onSubmit}>
      {children}
      <button
        type="submit"
        name="intent"
        value="resend"
        className="button-text"
        aria-disabled={waiting || undefined}
        aria-describedby={waiting ? waitId : undefined}
        onClick={(event) => {
          if (waiting) event.preventDefault()
        }}
      >
        {t(email ? 'checkEmail.resend' : 'mfa.resend')}
      </button>
      {/* Not a live region: a figure read out every second would drown the page; the button's description has it. */}
      {waiting ? (
        <p id={waitId} className="resend-wait">
          {t(email ? 'checkEmail.resendIn' : 'mfa.resendIn', { seconds: left })}
        </p>
      ) : null}
    </SecureForm>
  )
}
