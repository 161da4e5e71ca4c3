import type { ServerBuild } from 'react-router'

type RouteModule = {
  loader?: (args: { request: Request; context: Record<string, unknown> }) => unknown
  action?: (args: { request: Request; context: Record<string, unknown> }) => unknown
}

/**
 * A minimal React Router server build for express-level tests of app/.server/http: a root route with the
 * given loader and action, and optionally more routes under it (id → { path, module }).
 */
export function fakeBuild(root: RouteModule, children: Record<string, { path: string; module: RouteModule }> = {}): ServerBuild {
  return {
    entry: {
      module: {
        default: (_req: Request, status: number, headers: Headers) => new Response('', { status, headers }),
        // React Router would print every 404 here.
        handleError: () => undefined,
      },
    },
    routes: {
      root: { id: 'root', path: '', module: root },
      ...Object.fromEntries(
        Object.entries(children).map(([id, route]) => [id, { id, parentId: 'root', path: route.path, module: route.module }]),
      ),
    },
    assets: { routes: {}, entry: { imports: [], module: '' }, url: '', version: '' },
    future: {},
    publicPath: '/',
    assetsBuildDirectory: '',
    basename: '/',
    ssr: true,
    prerender: [],
    routeDiscovery: { mode: 'lazy', manifestPath: '/__manifest' },
    isSpaMode: false,
    mode: 'production',
  } as unknown as ServerBuild
}
