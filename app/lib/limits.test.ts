import { expect, it } from 'vitest'
import { retryAtAfter } from './limits'

it('says when a limit lets go at the whole minute after it, never before', () => {
  const now = Date.UTC(2026, 0, 1, 18, 4, 30)
  expect(retryAtAfter(20, now)).toBe(Date.UTC(2026, 0, 1, 18, 5))
  expect(retryAtAfter(30, now)).toBe(Date.UTC(2026, 0, 1, 18, 5))
  expect(retryAtAfter(31, now)).toBe(Date.UTC(2026, 0, 1, 18, 6))
  expect(retryAtAfter(3600, now)).toBe(Date.UTC(2026, 0, 1, 19, 5))
})
