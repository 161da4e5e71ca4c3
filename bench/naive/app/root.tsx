import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLoaderData, type LoaderFunctionArgs } from 'react-router'
import { getLocale, i18nextMiddleware } from './i18next.server'

export const middleware = [i18nextMiddleware]

export function loader({ context }: LoaderFunctionArgs) {
  return { locale: getLocale(context) }
}

export const handle = { i18n: 'common' }

export default function App() {
  const { locale } = useLoaderData<typeof loader>()
  return (
    <html lang={locale}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        <Outlet />
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  )
}
