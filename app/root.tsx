import type { LinksFunction, LoaderFunctionArgs } from '@remix-run/node'
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useRouteLoaderData } from '@remix-run/react'
import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { useChangeLanguage } from 'remix-i18next/react'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { LanguageSwitch } from '~/components/language-switch'
import { Logo } from '~/components/logo'
import { DEFAULT_LOCALE, isLocale, isoOf } from '~/lib/i18n'
import stylesUrl from '~/styles.css?url'
import { getLocale } from '../server/i18n'

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: stylesUrl },
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
]

export async function loader({ request }: LoaderFunctionArgs) {
  return { locale: await getLocale(request) }
}

export const handle = { i18n: 'common' }

export function Layout({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<typeof loader>('root')
  const { i18n } = useTranslation()
  const locale = data?.locale ?? (isLocale(i18n.language) ? i18n.language : DEFAULT_LOCALE)
  return (
    <html lang={isoOf(locale)} dir="ltr">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <Meta />
        <Links />
      </head>
      <body>
        <div id="auth-portal-app" className="app">
          <header className="app-header">
            <Logo />
          </header>
          <main className="card">{children}</main>
          <footer className="app-footer">
            <LanguageSwitch current={locale} />
          </footer>
        </div>
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  )
}

export default function App() {
  const data = useRouteLoaderData<typeof loader>('root')
  // Follows the root loader after the language switch revalidates it: no navigation needed.
  useChangeLanguage(data?.locale ?? DEFAULT_LOCALE)
  return <Outlet />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
