import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLoaderData } from '@remix-run/react'
import type { LoaderFunctionArgs } from '@remix-run/node'
import i18next from './i18next.server'

export async function loader({ request }: LoaderFunctionArgs) {
  return { locale: await i18next.getLocale(request) }
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
