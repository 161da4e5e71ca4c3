import { describe, expect, it } from 'vitest'
import { localPathOr, loopbackHostsAllowed } from './redirect'

describe('localPathOr', () => {
  it.each([
    ['/', '/'],
    ['/forgot-password', '/forgot-password'],
    ['/new-password?oobCode=abc&lang=fr', '/new-password?oobCode=abc&lang=fr'],
    ['/a/../b', '/b'],
    ['/%2F%2Fevil.com', '/%2F%2Fevil.com'],
    ['/x#fragment', '/x'],
  ])('keeps the local path %j', (value, expected) => {
    expect(localPathOr(value)).toBe(expected)
  })

  it.each([
    undefined,
    null,
    42,
    ['/'],
    '',
    'dashboard',
    'https://evil.com/',
    '//evil.com',
    '///evil.com',
    '/\\evil.com',
    '\\\\evil.com',
    '/\t/evil.com',
    '/\n/evil.com',
    '/\u0000',
    '/\u007f',
    'javascript:alert(1)',
    '/' + 'a'.repeat(2048),
  ])('falls back for %j', (value) => {
    expect(localPathOr(value)).toBe('/')
  })

  it('uses the given fallback', () => {
    expect(localPathOr('//evil.com', '/home')).toBe('/home')
  })

  it('accepts exactly 2048 characters', () => {
    const value = '/' + 'a'.repeat(2047)
    expect(localPathOr(value)).toBe(value)
  })

  // Dot segments collapse to a protocol-relative path that a Location header would send off-site.
  it.each(['/.//evil.com', '/..//evil.com', '/%2e//evil.com', '/a/..//evil.com'])(
    'never returns a protocol-relative path for %j',
    (value) => {
      expect(localPathOr(value)).not.toMatch(/^\/\//)
    },
  )
})

describe('loopbackHostsAllowed', () => {
  it.each([
    ['local', true],
    ['test', true],
    ['development', true],
    ['staging', false],
    ['isoprod', false],
    ['production', false],
  ] as const)('%s → %s', (platform, allowed) => {
    expect(loopbackHostsAllowed(platform)).toBe(allowed)
  })
})
