import { isRouteErrorResponse, Link, useLocation, useRouteError } from '@remix-run/react'
import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'

/**
 * The error page (seed section 2): a heading with the error's status message, or
 * message.unknownError when there is none; 404 says 'Page not found' and the full path.
 * No stack trace is ever shown.
 */
export function GeneralErrorBoundary() {
  const error = useRouteError()
  const { t } = useTranslation()
  const location = useLocation()

  useEffect(() => {
    console.error(error)
  }, [error])

  let heading: string = t('message.unknownError')
  if (isRouteErrorResponse(error)) {
    if (error.status === 404) heading = `${t('error.pageNotFound')} ${location.pathname}${location.search}`
    else if (error.status === 403) heading = t('error.forbidden')
  }

  return (
    <section aria-labelledby="error-heading">
      <h1 id="error-heading" className="error-heading">
        {heading}
      </h1>
      <p>
        <Link to="/">{t('error.backToSignIn')}</Link>
      </p>
    </section>
  )
}
