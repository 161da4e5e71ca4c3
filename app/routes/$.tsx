import { isRouteErrorResponse } from 'react-router'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { ERROR_ROUTE } from '~/lib/error-status'
import { pageTitle } from '~/lib/meta'
import { LONG_PATH_PARAM, LONG_PATH_ROUTE, LONG_PATH_SHOWN } from '~/.server/http/request-bounds'
import { errorPage, respond } from '~/.server/result'
import type { Route } from './+types/$'

export const meta: Route.MetaFunction = ({ matches, error }) =>
  pageTitle(matches, isRouteErrorResponse(error) && error.status !== 404 ? 'meta.error' : 'error.pageNotFound')

/**
 * Any unknown path: 404 with 'Page not found' and the path. A path over the
 * server's bounds arrives as LONG_PATH_ROUTE with its start (app/.server/http/app.ts, ADR 016): the
 * page shows that start and '…', from the error's data so that the browser, whose address is
 * still the long one, renders the same heading when it hydrates.
 */
export function loader({ url, context }: Route.LoaderArgs) {
  // A request the HTTP server refused (app/.server/http/app.ts): its status's error page.
  if (url.pathname === ERROR_ROUTE && context.errorStatus) return respond(errorPage(context.errorStatus, 'refused'))
  if (url.pathname === LONG_PATH_ROUTE) {
    const start = url.searchParams.get(LONG_PATH_PARAM) ?? ''
    const shown = start.startsWith('/') ? start.slice(0, LONG_PATH_SHOWN) : '/'
    return respond(errorPage(404, 'not-found', { path: `${shown}…` }))
  }
  return respond(errorPage(404, 'not-found'))
}

export default function NotFound() {
  return null
}

export const ErrorBoundary = GeneralErrorBoundary
