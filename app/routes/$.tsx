import { GeneralErrorBoundary } from '~/components/error-boundary'

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
