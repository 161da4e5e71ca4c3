import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLocation, useRouteLoaderData } from 'react-router'
import { useEffect, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { ErrorPage, GeneralErrorBoundary } from '~/components/error-boundary'
import { LanguageSwitch } from '~/components/language-switch'
import { Logo } from '~/components/logo'
import { BrowserCookieCheck, FramedCookieCheck, PrivacyNotice } from '~/components/notices'
import { StorageStandIn } from '~/components/storage-stand-in'
import { brandAttribute, getBrand } from '~/lib/brand'
import { ERROR_ROUTE } from '~/lib/error-status'
import { DEFAULT_LOCALE, isLocale, isoOf } from '~/lib/i18n'
import { partsFor, stringsUrl } from '~/lib/i18n-browser'
import { pageTitle, rootLoaded, titleText } from '~/lib/meta'
import { useNonce } from '~/lib/nonce'
import { navigationArrived, takeUnreachableTarget } from '~/lib/reload-at-target'
import stylesUrl from '~/styles.css?url'
import { getConfig } from '~/.server/config'
import { hasConsented } from '~/.server/preferences'
import { cookiesBlockedInFrame, issueCsrf } from '~/.server/policy/csrf'
import { browserSentryConfig } from '~/.server/ops/sentry'
import { getLocale } from '~/.server/i18n'
import { page, respond } from '~/.server/result'
import type { Route } from './+types/root'

export const links: Route.LinksFunction = () => {
  const { stylesheet } = getBrand()
  return [
    { rel: 'stylesheet', href: stylesUrl },
    // After the portal's own, so the brand's accent overrides its colours.
    ...(stylesheet ? [{ rel: 'stylesheet', href: stylesheet }] : []),
    { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
  ]
}

export const meta: Route.MetaFunction = ({ matches }) => (rootLoaded(matches) ? pageTitle(matches, 'meta.error') : [])

export async function loader({ request }: Route.LoaderArgs) {
  const { token, setCookie } = issueCsrf(request)
  const { privacyPolicyUrl, cookiesHelpUrl } = getConfig()
  return respond(
    page(
      {
        locale: getLocale(request),
        csrf: token,
        consented: hasConsented(request),
        blockedFrame: cookiesBlockedInFrame(request),
        privacyPolicyUrl,
        cookiesHelpUrl,
        sentry: browserSentryConfig(),
      },
      { cookies: setCookie ? [setCookie] : [] },
    ),
  )
}

export function Layout({ children }: { children: ReactNode }) {
  const root = useRouteLoaderData<typeof loader>('root')
  const nonce = useNonce()
  const { i18n } = useTranslation()
  const locale = root?.locale ?? (isLocale(i18n.language) ? i18n.language : DEFAULT_LOCALE)
  // A request the HTTP server refused: the browser's address is another, so nothing to hydrate.
  const { pathname, search } = useLocation()
  const scripts = pathname !== ERROR_ROUTE
  const [firstParts] = useState(() => partsFor(pathname, search))
  // Its strings are the ones to preload, even after a switch in place.
  const [firstLocale] = useState(locale)
  return (
    <html lang={isoOf(locale)} dir="ltr">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <Meta />
        {root ? null : <title>{titleText(locale, 'meta.error')}</title>}
        {root?.sentry ? <meta name="sentry" content={JSON.stringify(root.sentry)} /> : null}
        <Links />
        {/* The page's strings: the script needs them before it takes over the page. */}
        {scripts
          ? firstParts.map((part) => <link key={part} rel="preload" as="fetch" href={stringsUrl(firstLocale, part)} crossOrigin="anonymous" />)
          : null}
      </head>
      <body>
        <div id="auth-portal-app" className="app" data-brand={brandAttribute()}>
          <header className="app-header">
            <Logo locale={locale} />
          </header>
          <main className="card">
            {root ? <FramedCookieCheck helpUrl={root.cookiesHelpUrl} serverSaid={root.blockedFrame} /> : null}
            {root ? <BrowserCookieCheck helpUrl={root.cookiesHelpUrl} /> : null}
            {children}
          </main>
          <footer className="app-footer">
            {root && !root.consented ? <PrivacyNotice privacyPolicyUrl={root.privacyPolicyUrl} /> : null}
            <LanguageSwitch current={locale} />
          </footer>
        </div>
        {scripts ? <StorageStandIn nonce={nonce} /> : null}
        {scripts ? <ScrollRestoration nonce={nonce} /> : null}
        {scripts ? <Scripts nonce={nonce} /> : null}
      </body>
    </html>
  )
}

export default function App() {
  const root = useRouteLoaderData<typeof loader>('root')
  const locale = root?.locale ?? DEFAULT_LOCALE
  const { i18n } = useTranslation()
  useEffect(() => void i18n.changeLanguage(locale), [i18n, locale])
  const location = useLocation()
  useEffect(navigationArrived, [location])
  const unreachable = useUnreachableTarget()
  return unreachable ? <AccessError to={unreachable} /> : <Outlet />
}

function useUnreachableTarget(): string | null {
  const { key } = useLocation()
  const [failed, setFailed] = useState<{ to: string; key: string } | null>(null)
  useEffect(() => {
    const to = takeUnreachableTarget()
    if (to) setFailed({ to, key })
    // Once, at start-up: only then can the guard have given up.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])
  return failed?.key === key ? failed.to : null
}

function AccessError({ to }: { to: string }) {
  const { t } = useTranslation()
  return (
    <ErrorPage heading={t('error.accessError', { url: new URL(to, window.location.origin).href })}>
      <p>
        {/* A document load, not a client navigation: the page comes whole from the server. */}
        <a href={to}>{t('error.retry')}</a>
      </p>
    </ErrorPage>
  )
}

export const ErrorBoundary = GeneralErrorBoundary
