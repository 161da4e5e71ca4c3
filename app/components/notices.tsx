import { useFetcher, useLocation } from 'react-router'
import { useEffect, useState } from 'react'
import { createPortal } from 'react-dom'
import { useTranslation } from 'react-i18next'
import { SecureForm } from './secure-form'

/**
 * The privacy notice. Accepting posts to /consent: without JavaScript the page
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

/**
 * Cookies are off: the portal's own cookie was refused. In another site's frame the portal's cookies are
 * third-party ones, and 'Please enable third-party cookies…' says so; on the portal's own page
 * they are first-party, and the message says to allow this site's cookies. A link to help either way.
 */
export function CookieWarning({ helpUrl, thirdParty }: { helpUrl: string; thirdParty: boolean }) {
  const { t } = useTranslation()
  return (
    <div className="alert alert-error cookie-warning" role="alert">
      <p>{t(thirdParty ? 'notice.thirdPartyCookies' : 'notice.siteCookies')}</p>
      <a href={helpUrl}>{t('notice.thirdPartyCookiesHelp')}</a>
    </div>
  )
}

/**
 * In the browser: the warning when cookies are off, right after the page's heading (the heading says
 * where one is; the warning says why nothing will work). The layout holds no heading of its own, so
 * the warning goes into a place made after the page's h1, again at each navigation. A page that
 * gives the warning itself (the 403 of a post without its cookie) hides this one (pages.css).
 */
export function BrowserCookieCheck({ helpUrl }: { helpUrl: string }) {
  const { key } = useLocation()
  const [slot, setSlot] = useState<HTMLElement | null>(null)
  useEffect(() => {
    if (navigator.cookieEnabled) return
    const place = document.createElement('div')
    place.className = 'cookie-check'
    const heading = document.querySelector('main h1')
    if (heading) heading.after(place)
    else document.querySelector('main')?.prepend(place)
    setSlot(place)
    return () => place.remove()
  }, [key])
  return slot ? createPortal(<CookieWarning helpUrl={helpUrl} thirdParty={window.self !== window.top} />, slot) : null
}
