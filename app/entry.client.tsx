import { RemixBrowser } from '@remix-run/react'
import i18next from 'i18next'
import { StrictMode, startTransition } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { I18nextProvider, initReactI18next } from 'react-i18next'
import { DEFAULT_LOCALE, LOCALES, i18nOptions } from '~/lib/i18n'

// The server wrote the page's language in <html lang>; start in the same one to hydrate cleanly.
const iso = document.documentElement.lang
const lng = LOCALES.find((l) => l.iso === iso)?.code ?? DEFAULT_LOCALE

// Error reporting loads, as its own chunk, only when the server turned it on (SENTRY_DSN).
const sentry = document.querySelector<HTMLMetaElement>('meta[name="sentry-dsn"]')
if (sentry?.content) {
  void import('~/lib/sentry.client').then(({ initBrowserSentry }) =>
    initBrowserSentry({ dsn: sentry.content, environment: sentry.dataset.environment ?? '' }),
  )
}

void i18next
  .use(initReactI18next)
  .init({ ...i18nOptions, lng })
  .then(() => {
    startTransition(() => {
      hydrateRoot(
        document,
        <I18nextProvider i18n={i18next}>
          <StrictMode>
            <RemixBrowser />
          </StrictMode>
        </I18nextProvider>,
      )
    })
  })
