import { StrictMode, startTransition } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { HydratedRouter } from 'react-router/dom'
import { I18nextProvider } from 'react-i18next'
import { brandFromAttribute, setBrand } from '~/lib/brand'
import { DEFAULT_LOCALE, LOCALES } from '~/lib/i18n'
import { createBrowserI18n, loadStrings } from '~/lib/i18n-browser'
import { afterLoadWhenIdle } from '~/lib/idle'
import { resumeInterruptedNavigation, watchLinkClicks } from '~/lib/reload-at-target'

// Start in the server's language so hydration matches.
const iso = document.documentElement.lang
const lng = LOCALES.find((l) => l.iso === iso)?.code ?? DEFAULT_LOCALE
// Fetched at once, in parallel with decoding the server's data.
const strings = loadStrings(lng, window.location.pathname, window.location.search)
setBrand(brandFromAttribute(document.getElementById('auth-portal-app')?.dataset.brand))

// Loaded as its own chunk once the page is idle, so it never weighs on a
// first visit (see ADR 030). Errors before then are kept and handed to it.
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

// A key press or click before the server's data is decoded makes React hydrate synchronously, and a
// suspending synchronous render aborts hydration (React error #345). So decode first, then hydrate.
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
