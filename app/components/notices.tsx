import { useFetcher, useLocation } from 'react-router'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { SecureForm } from './secure-form'

/**
 * The privacy notice (seed section 2). Accepting posts to /consent: without JavaScript the page
 * comes back without the notice; with it the notice goes at once, without a reload.
 */
export function PrivacyNotice({ privacyPolicyUrl }: { privacyPolicyUrl: string }) {
  const { t } = useTranslation()
  const location = useLocation()
  const fetcher = useFetcher()
  if (fetcher.state !== 'idle' || fetcher.data) return null
  return (
    <section className="notice" aria-label={t('notice.privacyPolicy')}>
      <p>
        {t('notice.cookies')} <a href={privacyPolicyUrl}>{t('notice.privacyPolicy')}</a>
      </p>
      <SecureForm
        action="/consent"
        onSubmit={(event) => {
          event.preventDefault()
          const form = new FormData(event.currentTarget)
          form.set('inPlace', '1')
          fetcher.submit(form, { method: 'post', action: '/consent' })
        }}
      >
        <input type="hidden" name="returnTo" value={location.pathname + location.search} />
        <button type="submit" className="button-secondary">
          {t('notice.accept')}
        </button>
      </SecureForm>
    </section>
  )
}

/** 'Please enable third-party cookies…' with a link to help (seed section 2). */
export function CookieWarning({ helpUrl }: { helpUrl: string }) {
  const { t } = useTranslation()
  return (
    <div className="alert alert-error" role="alert">
      <p>{t('notice.thirdPartyCookies')}</p>
      <a href={helpUrl}>{t('notice.thirdPartyCookiesHelp')}</a>
    </div>
  )
}

/** In the browser: the warning when cookies are off (e.g. the portal framed by another site). */
export function BrowserCookieCheck({ helpUrl }: { helpUrl: string }) {
  const [blocked, setBlocked] = useState(false)
  useEffect(() => setBlocked(!navigator.cookieEnabled), [])
  return blocked ? <CookieWarning helpUrl={helpUrl} /> : null
}
