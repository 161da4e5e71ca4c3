import { isRouteErrorResponse, Link, useLocation, useRouteError, useRouteLoaderData } from '@remix-run/react'
import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import type { loader as rootLoader } from '~/root'
import { CookieWarning } from './notices'

/**
 * The error page (seed section 2): a heading with the error's status message, or
 * message.unknownError when there is none; 404 says 'Page not found' and the full path.
 * No stack trace is ever shown.
 */
export function GeneralErrorBoundary() {
  const error = useRouteError()
  const { t } = useTranslation()
  const location = useLocation()
  const root = useRouteLoaderData<typeof rootLoader>('root')

  useEffect(() => {
    console.error(error)
  }, [error])

  let heading: string = t('message.unknownError')
  // A form post without the cookie its page set: the browser blocks cookies (e.g. in a frame).
  const cookiesBlocked = isRouteErrorResponse(error) && error.status === 403 && error.data?.reason === 'cookie-missing'
  const helpUrl = cookiesBlocked ? (error.data.cookiesHelpUrl ?? root?.cookiesHelpUrl) : null
  if (isRouteErrorResponse(error)) {
    if (error.status === 404)
      heading = `${t('error.pageNotFound')} ${shownPath(error.data) ?? location.pathname + location.search}`
    else if (error.status === 403) heading = t('error.forbidden')
  }

  return (
    <section aria-labelledby="error-heading">
      <h1 id="error-heading" className="error-heading">
        {heading}
      </h1>
      {helpUrl ? <CookieWarning helpUrl={helpUrl} /> : null}
      <p>
        <Link to="/">{t('error.backToSignIn')}</Link>
      </p>
    </section>
  )
}

/** The path a 404 names when its data says (an over-long path, shortened by the server: app/routes/$.tsx). */
function shownPath(data: unknown): string | null {
  const path = (data as { path?: unknown } | null)?.path
  return typeof path === 'string' ? path : null
}
