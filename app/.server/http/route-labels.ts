import { pathWithinBounds } from './request-bounds'

const SERVER_ROUTES = ['/healthz', '/readyz', '/__manifest']

type RouteManifest = Record<string, { parentId?: string; path?: string; index?: boolean } | undefined>

/** The label set is bounded by the build, never by what clients send. */
export function routeLabeler(routes: RouteManifest | null): (path: string) => string {
  const patterns = new Set(SERVER_ROUTES)
  const fullPath = (id: string | undefined, depth = 0): string => {
    const route = id ? routes?.[id] : undefined
    if (!route || depth > 32) return ''
    const parent = fullPath(route.parentId, depth + 1)
    return route.path ? `${parent.replace(/\/$/, '')}/${route.path.replace(/^\//, '')}` : parent
  }
  for (const id of Object.keys(routes ?? {})) {
    const pattern = fullPath(id) || '/'
    // A splat would label every unknown URL with its pattern.
    if (!pattern.includes('*') && !pattern.includes('?')) patterns.add(pattern.replace(/(.)\/$/, '$1'))
  }
  const dynamic = [...patterns]
    .filter((p) => p.includes('/:'))
    .map((p) => ({
      pattern: p,
      regex: new RegExp(
        `^${p
          .split('/')
          .map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/')}$`,
      ),
    }))

  // Every request's path comes here: no regex may backtrack on it (`/\/+$/` on '/' + 8,000 slashes + 'x' took 130 ms).
  return (rawPath) => {
    if (!pathWithinBounds(rawPath)) return 'other'
    // React Router asks for the data of `/x` at `/x.data`, of `/` and `/x/` at `/_.data` and `/x/_.data`.
    const page = rawPath.endsWith('/_.data') ? rawPath.slice(0, -'_.data'.length) : withoutSuffix(rawPath, '.data')
    const path = trimTrailingSlashes(page)
    if (patterns.has(path)) return path
    return dynamic.find((d) => d.regex.test(path))?.pattern ?? 'other'
  }
}

function withoutSuffix(value: string, suffix: string): string {
  return value.endsWith(suffix) ? value.slice(0, -suffix.length) : value
}

/** A loop: `/\/+$/` backtracks quadratically on '///…///x'. */
export function trimTrailingSlashes(path: string): string {
  let end = path.length
  while (end > 1 && path.charCodeAt(end - 1) === 47) end--
  return end === path.length ? path : path.slice(0, end)
}
