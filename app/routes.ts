import { route, type RouteConfig } from '@react-router/dev/routes'
import { flatRoutes } from '@react-router/fs-routes'

// The sign-in page is the route at "/", not an index route: its form posts to "/" itself, so the address
// bar never shows "/?index" and a plain `POST /` signs in. A form posting to "/?index" still reaches it.
export default [
  route('/', 'routes/_index.tsx', { id: 'routes/_index' }),
  ...(await flatRoutes({ ignoredRouteFiles: ['**/_index.tsx'] })),
] satisfies RouteConfig
