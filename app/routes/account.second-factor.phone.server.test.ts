import { describe, expect, it } from 'vitest'
import { normalisePhone } from './account.second-factor.phone.server'

describe('normalisePhone', () => {
  it.each([
    ['+33612345678', '+33612345678'],
    [' +33 6 12 34 56 78 ', '+33612345678'],
    ['+1 (555) 010-0100', '+15550100100'],
    ['+44.20.7946.0958', '+442079460958'],
  ])('%j is %s', (typed, phone) => expect(normalisePhone(typed)).toBe(phone))

  it.each(['0612345678', '+0612345678', '+3361234', '+33 6 12 34 56 78 90 12 34', '+33612345678x', '', '++33612345678'])(
    'refuses %j',
    (typed) => expect(normalisePhone(typed)).toBeNull(),
  )
})
