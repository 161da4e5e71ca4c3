import type { MetaFunction } from '@remix-run/node'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { pageTitle } from '~/lib/meta'

export const meta: MetaFunction = ({ matches }) => pageTitle(matches, 'error.pageNotFound')

/** Any unknown path: 404 with 'Page not found' and the path (seed section 2). */
export function loader() {
  throw new Response('Not Found', { status: 404 })
}

export default function NotFound() {
  return null
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
