import { describe, expect, it } from 'vitest'
import { routeLabeler, trimTrailingSlashes } from '~/.server/http/router-handler'
import {
  LONG_PATH_ROUTE,
  PATH_MAX_LENGTH,
  PATH_MAX_SEGMENTS,
  boundedManifestQuery,
  longPathReplacement,
  pathWithinBounds,
  segmentCount,
} from './request-bounds'

describe('path bounds', () => {
  it('accepts every route of the portal and refuses long or deep paths', () => {
    for (const path of ['/', '/forgot-password', '/sso/callback', '/_.data', '/assets/entry.client-abc.js']) {
      expect(pathWithinBounds(path), path).toBe(true)
    }
    expect(pathWithinBounds('/' + 'a'.repeat(PATH_MAX_LENGTH - 1))).toBe(true)
    expect(pathWithinBounds('/' + 'a'.repeat(PATH_MAX_LENGTH))).toBe(false)
    expect(pathWithinBounds('/a'.repeat(PATH_MAX_SEGMENTS))).toBe(true)
    expect(pathWithinBounds('/a'.repeat(PATH_MAX_SEGMENTS + 1))).toBe(false)
    // URL parsers read '\' as '/'.
    expect(pathWithinBounds('/a' + '\\a'.repeat(PATH_MAX_SEGMENTS))).toBe(false)
    expect(segmentCount('/'.repeat(100_000))).toBe(PATH_MAX_SEGMENTS + 1)
  })

  it('replaces a long path with the reserved one: never a real route, .data kept', () => {
    const replaced = longPathReplacement('/forgot-password' + '/'.repeat(8000))
    expect(replaced.startsWith(`${LONG_PATH_ROUTE}?shown=`)).toBe(true)
    expect(replaced.length).toBeLessThan(250)
    expect(longPathReplacement('/a'.repeat(4000) + '.data').startsWith(`${LONG_PATH_ROUTE}.data?`)).toBe(true)
  })

  it('bounds /__manifest queries', () => {
    expect(boundedManifestQuery('paths=%2Fforgot-password&version=abc')).toBe('version=abc&paths=%2Fforgot-password')
    expect(boundedManifestQuery(`paths=${'/a'.repeat(4000)},${'/b'.repeat(40)}&version=abc`)).toBe(
      `version=abc&paths=${encodeURIComponent(LONG_PATH_ROUTE)}`,
    )
    expect(boundedManifestQuery(`paths=${Array.from({ length: 33 }, (_, i) => `/x${i}`).join(',')}`)).toBeNull()
    expect(boundedManifestQuery(`paths=${Array.from({ length: 30 }, () => '/a/b/c').join(',')}`)).toBeNull()
  })
})

describe('route labels on long input', () => {
  const label = routeLabeler({
    root: { path: '' },
    'routes/forgot-password': { parentId: 'root', path: 'forgot-password' },
  })

  it('trims trailing slashes without a regex', () => {
    expect(trimTrailingSlashes('/')).toBe('/')
    expect(trimTrailingSlashes('///')).toBe('/')
    expect(trimTrailingSlashes('/a//')).toBe('/a')
    expect(label('/forgot-password//')).toBe('/forgot-password')
    expect(label('/forgot-password.data')).toBe('/forgot-password')
  })

  it('labels a path over the bounds "other" (timings: tests/integration/long-paths.test.ts)', () => {
    for (const path of ['/forgot-password' + '/'.repeat(8000), '/' + '/'.repeat(8000) + 'x', '/a'.repeat(4000)]) {
      expect(label(path)).toBe('other')
    }
  })
})
