import { describe, expect, it } from 'vitest'
import { clock } from './local-time'

describe('a time of day as a limit says it', () => {
  it('has two-digit hours in French and the 12-hour clock in English, past midnight too', () => {
    const at = Date.parse('2026-11-28T00:08:00Z')
    expect(clock(at, 'fr', 'UTC')).toBe('00:08')
    expect(clock(at, 'en', 'UTC')).toBe('12:08 AM')
    expect(clock(Date.parse('2026-11-28T18:05:00Z'), 'fr', 'UTC')).toBe('18:05')
  })
})
