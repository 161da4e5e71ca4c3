import { StrictMode, startTransition } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { HydratedRouter } from 'react-router/dom'
import { I18nextProvider } from 'react-i18next'
import { brandFromAttribute, setBrand } from '~/lib/brand'
import { DEFAULT_LOCALE, LOCALES } from '~/lib/i18n'
import { createBrowserI18n, loadStrings } from '~/lib/i18n-browser'
import { afterLoadWhenIdle } from '~/lib/idle'
import { resumeInterruptedNavigation, watchLinkClicks } from '~/lib/reload-at-target'

// The server wrote the page's language in <html lang>; start in the same one to hydrate cleanly.
const iso = document.documentElement.lang
const lng = LOCALES.find((l) => l.iso === iso)?.code ?? DEFAULT_LOCALE
// Its strings, fetched at once, in parallel with decoding the server's data (app/lib/translator.ts).
const strings = loadStrings(lng, window.location.pathname)
// And with the operator's brand it rendered (app/lib/brand.ts).
setBrand(brandFromAttribute(document.getElementById('auth-portal-app')?.dataset.brand))

/**
 * Error reporting, when the server turned it on (SENTRY_DSN), loads as its own chunk once the page
 * is loaded and idle, so that it never weighs on a first visit (ADR 030). Errors before then are
 * kept and handed to it.
 */
const sentry = document.querySelector<HTMLMetaElement>('meta[name="sentry"]')
if (sentry?.content) {
  const early: Event[] = []
  const keep = (event: Event) => early.push(event)
  addEventListener('error', keep)
  addEventListener('unhandledrejection', keep)
  afterLoadWhenIdle(
    () => void import('~/lib/sentry.client').then((reporter) => reporter.initBrowserSentry(sentry, early, keep)),
  )
}

const i18n = createBrowserI18n(lng)

/**
 * HydratedRouter suspends on its first render until the server's data stream is
 * decoded. A key press or click in that window makes React hydrate synchronously, and a synchronous
 * render that suspends outside a Suspense boundary aborts hydration (React error #345). So start the
 * decoding first (the first call only starts it and throws its promise, before any hook) and hydrate
 * when it is done: hydration then never suspends.
 */
async function routerStateDecoded() {
  try {
    HydratedRouter({})
  } catch (pending) {
    if (pending instanceof Promise) await pending
  }
}

// A click cut short by a failed page script: go on to the page it was going to.
if (!resumeInterruptedNavigation()) {
  watchLinkClicks()
  void Promise.all([routerStateDecoded(), strings]).then(hydrate)
}

function hydrate() {
  startTransition(() => {
    hydrateRoot(
      document,
      <I18nextProvider i18n={i18n}>
        <StrictMode>
          <HydratedRouter />
        </StrictMode>
      </I18nextProvider>,
    )
  })
}
