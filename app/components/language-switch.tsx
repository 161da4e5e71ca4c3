import { Fragment } from 'react'
import { useFetcher, useLocation } from 'react-router'
import { useTranslation } from 'react-i18next'
import { ERROR_ROUTE } from '~/lib/error-status'
import { LOCALES, isLocale, type Locale } from '~/lib/i18n'
import { loadStrings } from '~/lib/i18n-browser'
import { SecureForm } from './secure-form'

/**
 * Without JavaScript: a form post that sets the cookie and comes back to the same address.
 * With it: the same form through a fetcher, so the page changes language in place.
 */
export function LanguageSwitch({ current }: { current: Locale }) {
  const { t } = useTranslation()
  const location = useLocation()
  const fetcher = useFetcher()
  return (
    <SecureForm
      action="/language"
      className="language-switch"
      aria-label={t('language.label')}
      onSubmit={(event) => {
        event.preventDefault()
        const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null
        const form = new FormData(event.currentTarget, submitter)
        form.set('inPlace', '1')
        // The new language's strings first, so that the page and its title change together.
        const next = form.get('locale')
        void (isLocale(next) ? loadStrings(next, location.pathname, location.search) : Promise.resolve()).then(() =>
          fetcher.submit(form, { method: 'post', action: '/language' }),
        )
      }}
    >
      {/* The page of a request the server refused has no address of its own to come back to. */}
      <input
        type="hidden"
        name="returnTo"
        value={location.pathname === ERROR_ROUTE ? '/' : location.pathname + location.search}
      />
      {LOCALES.map((l, i) => (
        <Fragment key={l.code}>
          {/* A space between the names for a text browser; the flex layout ignores it. */}
          {i > 0 ? ' ' : null}
          <button type="submit" name="locale" value={l.code} lang={l.iso} aria-pressed={l.code === current}>
            {l.name}
          </button>
        </Fragment>
      ))}
    </SecureForm>
  )
}
