import { route, type RouteConfig } from '@react-router/dev/routes'
import { flatRoutes } from '@react-router/fs-routes'

// The sign-in page is the route at "/", not an index route: its form posts to "/" itself, so the address
// bar never shows "/?index" and a plain `POST /` signs in. A form posting to "/?index" still reaches it.
// A page's own server module (`<page>.server.ts`, its flow) and its tests sit beside it and are no routes.
export default [
  route('/', 'routes/_index.tsx', { id: 'routes/_index' }),
  ...(await flatRoutes({ ignoredRouteFiles: ['**/_index.tsx', '**/*.server.ts', '**/*.test.ts'] })),
] satisfies RouteConfig
