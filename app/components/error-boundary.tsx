import { isRouteErrorResponse, Link, useLocation, useRouteError, useRouteLoaderData } from 'react-router'
import { useEffect, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { ERROR_ROUTE, errorCopy, offersRetry } from '~/lib/error-status'
import type { loader as rootLoader } from '~/root'
import { CookieWarning } from './notices'

/**
 * The error page: a heading with the error's status message, or
 * message.unknownError when there is none; 404 says 'Page not found' and the full path. Each
 * status the portal answers with this page has its own heading and a line saying what to do
 * (app/lib/error-status.ts). No stack trace is ever shown.
 */
export function GeneralErrorBoundary() {
  const error = useRouteError()
  const { t } = useTranslation()
  const location = useLocation()
  const root = useRouteLoaderData<typeof rootLoader>('root')

  // The error is written to the console. An answer given on purpose (404, 403…) is no
  // failure of the page: a readable line, not console.error (which also printed a minified class name).
  // The path only: a query may hold a one-time code.
  useEffect(() => {
    if (isRouteErrorResponse(error)) console.info(`${error.status} ${location.pathname}`)
    else console.error(error)
  }, [error, location.pathname])

  const status = isRouteErrorResponse(error) ? error.status : null
  // An over-long path, shortened by the server (app/routes/$.tsx), is named by the 404's data.
  const path: unknown = isRouteErrorResponse(error) ? error.data?.path : null
  const copy = errorCopy(status)
  const title = t(copy.title.key, copy.title.values)
  // 404: 'Page not found' and the path, the path set apart; the heading says 'Page not found'.
  const heading =
    status === 404 ? (
      <>
        {`${title} `}
        <code className="error-path">{typeof path === 'string' ? path : location.pathname + location.search}</code>
      </>
    ) : (
      title
    )
  // A form post without the cookie its page set: the browser blocks cookies (e.g. in a frame).
  const cookiesBlocked = isRouteErrorResponse(error) && error.status === 403 && error.data?.reason === 'cookie-missing'
  // In a frame the third-party warning, unless the layout's already says it (FramedCookieCheck).
  // A post refused in a frame: its document request says so (`framed`); a fetch's does not, its page does.
  const inFrame = cookiesBlocked && typeof window !== 'undefined' && window.self !== window.top
  const framed = cookiesBlocked && (error.data.framed === true || inFrame)
  const saidAbove = Boolean(root?.blockedFrame) || (inFrame && Boolean(root))
  const helpUrl = cookiesBlocked && !saidAbove ? (error.data.cookiesHelpUrl ?? root?.cookiesHelpUrl) : null
  // The same address again: an emailed link's code waits in its cookie, so the link is not lost.
  // Not for a request the HTTP server refused: its address in the browser is another one.
  const retry = offersRetry(status) && location.pathname !== ERROR_ROUTE ? location.pathname + location.search : null

  return (
    <ErrorPage heading={heading} retry={retry}>
      {status === 404 ? <p className="error-lead">{t('errorPage.404.lead')}</p> : null}
      {copy.text ? <p>{t(copy.text)}</p> : null}
      {helpUrl ? <CookieWarning helpUrl={helpUrl} thirdParty={framed} /> : null}
    </ErrorPage>
  )
}

/**
 * The error page's frame: its heading, what the caller adds, and the way back to sign-in; with
 * `retry`, 'Try again' at that address comes first (a document load: the page comes whole from the server).
 */
export function ErrorPage({ heading, retry, children }: { heading: ReactNode; retry?: string | null; children?: ReactNode }) {
  const { t } = useTranslation()
  return (
    <section aria-labelledby="error-heading">
      <h1 id="error-heading" className="error-heading">
        {heading}
      </h1>
      {children}
      <div className="actions">
        {retry ? (
          <a href={retry} className="button-primary button-link">
            {t('error.retry')}
          </a>
        ) : null}
        {/* A signed-in page that failed: trying again is going back, one way is enough. */}
        {retry === '/' ? null : (
          <Link to="/" className={retry ? undefined : 'button-primary button-link'}>
            {t('error.backToSignIn')}
          </Link>
        )}
      </div>
    </section>
  )
}
