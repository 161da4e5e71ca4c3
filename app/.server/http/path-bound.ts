/**
 * The longest path the portal routes (ADR 016). React Router's lazy route discovery matches every parent
 * of a path, so its cost grows with the square of the number of segments: `/a/a/…` with 4,000
 * segments took most of a second. No route of the portal has more than two segments, so anything
 * over these bounds is a page that does not exist, answered as such without React Router ever seeing it.
 * Nothing here uses a regular expression: these run on attacker-controlled input, once per request.
 */

/** Characters of the raw (percent-encoded) path, query string excluded. */
export const PATH_MAX_LENGTH = 1024
/** Path separators: '/' and '\' (which URL parsers read as '/'). */
export const PATH_MAX_SEGMENTS = 32

/** What React Router sees instead of an over-long path: no route of the portal, so the not-found page ($.tsx). */
export const LONG_PATH_ROUTE = '/__path-too-long'
/** Its query parameter: the start of the original path, shown on the not-found page. */
export const LONG_PATH_PARAM = 'shown'
/** How much of an over-long path the not-found page shows (followed by '…'). */
export const LONG_PATH_SHOWN = 64

/** /__manifest (lazy route discovery): how many paths one request may ask about, and their segments in all. */
export const MANIFEST_MAX_PATHS = 32
export const MANIFEST_MAX_SEGMENTS = 64

/** Separators in `path`, counting no further than `limit + 1`. */
export function segmentCount(path: string, limit = PATH_MAX_SEGMENTS): number {
  let count = 0
  for (let i = 0; i < path.length && count <= limit; i++) {
    const c = path.charCodeAt(i)
    if (c === 47 /* / */ || c === 92 /* \ */) count++
  }
  return count
}

export function pathWithinBounds(path: string): boolean {
  return path.length <= PATH_MAX_LENGTH && segmentCount(path) <= PATH_MAX_SEGMENTS
}

/**
 * The URL handed to React Router instead of one whose path is over the bounds: the not-found route with the
 * start of the path. A `.data` request (single fetch) stays one, so the client gets the 404 it expects.
 * The original query string is dropped (the page's language comes from a cookie or Accept-Language).
 */
export function longPathReplacement(path: string): string {
  const data = path.endsWith('.data') ? '.data' : ''
  return `${LONG_PATH_ROUTE}${data}?${LONG_PATH_PARAM}=${encodeURIComponent(path.slice(0, LONG_PATH_SHOWN))}`
}

/**
 * The query of a `/__manifest` request (`paths`, comma-separated, as React Router asks and reads it)
 * with every over-long path replaced by LONG_PATH_ROUTE (which React Router answers with the not-found
 * route, what that path would match), or null when it asks about too many paths or segments to be a
 * browser's eager discovery of the links on a portal page.
 */
export function boundedManifestQuery(search: string): string | null {
  const params = new URLSearchParams(search)
  if (!params.has('paths')) return params.toString()
  const paths = (params.get('paths') ?? '').split(',').filter(Boolean)
  if (paths.length > MANIFEST_MAX_PATHS) return null
  let segments = 0
  const bounded = paths.map((p) => {
    const kept = pathWithinBounds(p) ? p : LONG_PATH_ROUTE
    segments += segmentCount(kept) + 1
    return kept
  })
  if (segments > MANIFEST_MAX_SEGMENTS) return null
  params.delete('paths')
  params.append('paths', [...new Set(bounded)].join(','))
  return params.toString()
}
