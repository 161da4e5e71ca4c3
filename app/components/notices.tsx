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
    // In a frame, FramedCookieCheck says it for every kind of blocking.
    if (navigator.cookieEnabled || window.self !== window.top) return
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

/** Whether a cookie like the portal's own (SameSite=Lax) can be set here; a sandboxed frame throws. */
function cookiesWorkHere(): boolean {
  try {
    const name = `cookie_check_${Math.random().toString(36).slice(2)}`
    const attributes = `; Path=/; SameSite=Lax${window.location.protocol === 'https:' ? '; Secure' : ''}`
    document.cookie = `${name}=1${attributes}`
    const works = document.cookie.split('; ').includes(`${name}=1`)
    document.cookie = `${name}=${attributes}; Max-Age=0`
    return works
  } catch {
    return false
  }
}

/**
 * In another site's frame the portal's cookies are third-party ones, and browsers keep them from
 * it: the specification's warning, at the top of the page, before anything is typed. The server
 * says so when the request says it is for a cross-site frame (`serverSaid`); once the page's script
 * runs, a cookie tried in the frame decides, from the first page on.
 */
export function FramedCookieCheck({ helpUrl, serverSaid }: { helpUrl: string; serverSaid: boolean }) {
  const [blocked, setBlocked] = useState(serverSaid)
  useEffect(() => setBlocked(window.self !== window.top && !cookiesWorkHere()), [])
  return blocked ? <CookieWarning helpUrl={helpUrl} thirdParty /> : null
}
