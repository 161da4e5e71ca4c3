// React Router's lazy route discovery costs the square of the path's segments (4,000 took most
// of a second). No route has more than two, so longer paths are not-found pages that never
// reach React Router (see ADR 016). No regular expressions: the input is the attacker's.

export const PATH_MAX_LENGTH = 1024
/** '\' counts too: URL parsers read it as '/'. */
export const PATH_MAX_SEGMENTS = 32

export const LONG_PATH_ROUTE = '/__path-too-long'
export const LONG_PATH_PARAM = 'shown'
export const LONG_PATH_SHOWN = 64

export const MANIFEST_MAX_PATHS = 32
export const MANIFEST_MAX_SEGMENTS = 64

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

/** A `.data` request stays one, so the client gets the 404 it expects. */
export function longPathReplacement(path: string): string {
  const data = path.endsWith('.data') ? '.data' : ''
  return `${LONG_PATH_ROUTE}${data}?${LONG_PATH_PARAM}=${encodeURIComponent(path.slice(0, LONG_PATH_SHOWN))}`
}

/** Null when it asks about more paths or segments than a browser's discovery of a portal page's links. */
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
