import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'

declare global {
  interface Window {
    grecaptcha?: { enterprise?: { render(element: HTMLElement, options: { sitekey: string }): number } }
  }
}

/**
 * The reCAPTCHA Enterprise checkbox, for when the identity service asks for a captcha (seed
 * section 4). Its answer goes with the next submission as `g-recaptcha-response`. Without
 * JavaScript there is no captcha: the visitor is told so.
 */
export function Captcha({ siteKey }: { siteKey: string }) {
  const { t } = useTranslation()
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const render = () => {
      if (ref.current && window.grecaptcha?.enterprise && !ref.current.hasChildNodes()) {
        window.grecaptcha.enterprise.render(ref.current, { sitekey: siteKey })
      }
    }
    if (window.grecaptcha?.enterprise) return render()
    // Loaded by our nonced script, so 'strict-dynamic' lets it run.
    const script = document.createElement('script')
    script.src = 'https://www.google.com/recaptcha/enterprise.js?render=explicit'
    script.async = true
    script.addEventListener('load', () => setTimeout(render, 0))
    document.head.appendChild(script)
  }, [siteKey])
  return (
    <div className="captcha">
      <noscript>
        <p className="alert alert-error">{t('signIn.captchaNeedsJs')}</p>
      </noscript>
      <p className="field-hint">{t('signIn.captchaPrompt')}</p>
      <div ref={ref} data-sitekey={siteKey} />
    </div>
  )
}
