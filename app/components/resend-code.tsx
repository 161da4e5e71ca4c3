import { useEffect, useRef, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import type { TranslationKey } from '~/lib/i18n'
import type { CaptchaAction, CaptchaSettings } from '~/lib/recaptcha'
import { useCaptchaForm } from './captcha'
import { SecureForm } from './secure-form'

/**
 * 'Resend code', a secondary button under 'Verify'. During its cooldown it is marked unavailable and
 * its label says how long is left ('Resend code (0:42)'): the server's figure, counted down each second
 * with JavaScript, and counted again from each new code's figure (`sentAt` tells them apart: two codes
 * can leave the same figure). Without JavaScript the figure is the page's and the button still posts:
 * the server sends, or asks to wait.
 * It posts `intent=resend` to the page's own action (the sign-in step, the phone enrolment, and, with
 * its own `label`, "Send the email again" or "Send the link again" under `CheckEmail`, with its `children`, hidden fields).
 */
export function ResendForm({
  resendIn,
  sentAt,
  captcha,
  label = 'mfa.resend',
  children,
}: {
  resendIn: number
  /** When the server sent the code that the wait follows. */
  sentAt: number | null
  /** Where the page protects what it sends with reCAPTCHA: gets the token for `action` first (useCaptchaForm). */
  captcha?: { settings: CaptchaSettings | null; action: CaptchaAction }
  /** An email, not an SMS code: its own words. */
  label?: TranslationKey
  children?: ReactNode
}) {
  const { t } = useTranslation()
  const formRef = useRef<HTMLFormElement>(null)
  const action = captcha?.action ?? null
  const { onSubmit } = useCaptchaForm({ form: formRef, settings: captcha?.settings, actionFor: () => action })
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
        className="button-secondary"
        aria-disabled={waiting || undefined}
        onClick={(event) => {
          if (waiting) event.preventDefault()
        }}
      >
        {t(label)}
        {/* The wait as a clock reads it, '0:42' (m:ss of that many seconds after midnight); not a live region: read out every second it would drown the page. */}
        {waiting ? ` (${new Date(left * 1000).toISOString().slice(15, 19)})` : null}
      </button>
    </SecureForm>
  )
}
