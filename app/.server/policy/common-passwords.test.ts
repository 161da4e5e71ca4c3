import { describe, expect, it } from 'vitest'
import { commonPasswordCount, isCommonPassword, serverPasswordProblem } from './common-passwords'

describe('isCommonPassword', () => {
  it('ships the full zxcvbn-ts list (at least 10,000 entries)', () => {
    expect(commonPasswordCount()).toBeGreaterThanOrEqual(10_000)
  })

  // Entries verified to be in @zxcvbn-ts/language-common 3.0.4 (the list is all lower case).
  it.each(['password1234', 'qwerty123456', '1qaz2wsx3edc', 'p@ssw0rd', 'trustno1', 'iloveyou'])('%s', (entry) => {
    expect(isCommonPassword(entry)).toBe(true)
  })

  it('compares case-insensitively', () => {
    expect(isCommonPassword('Password1234')).toBe(true)
    expect(isCommonPassword('PASSWORD1234')).toBe(true)
    expect(isCommonPassword('P@ssW0rd')).toBe(true)
  })

  it.each(['', 'correct horse battery staple', 'Tr0ub4dor&3x!', 'password1234 ', 'p@ssw0rd😀'])(
    'does not flag %j',
    (password) => {
      expect(isCommonPassword(password)).toBe(false)
    },
  )
})

describe('serverPasswordProblem', () => {
  const opts = { minLength: 12 }

  it('refuses passwords that meet the rules but are common', () => {
    expect(serverPasswordProblem('Password1234', opts)).toBe('newPassword.tooCommon')
    expect(serverPasswordProblem('1Qaz2wsx3edc', opts)).toBe('newPassword.tooCommon')
    expect(serverPasswordProblem('Qwerty123456', opts)).toBe('newPassword.tooCommon')
  })

  it('reports the shared rules first, with the same keys as the browser hints', () => {
    expect(serverPasswordProblem('p@ssw0rd', opts)).toBe('newPassword.tooShort')
    expect(serverPasswordProblem('password1234', opts)).toBe('newPassword.tooFewClasses')
    expect(serverPasswordProblem('Password1234', { minLength: 12, email: 'password@example.com' })).toBe(
      'newPassword.containsEmail',
    )
  })

  it('accepts a strong, uncommon password', () => {
    expect(serverPasswordProblem('Tr0ub4dor&3x!', opts)).toBeNull()
    expect(serverPasswordProblem('correct Horse battery staple', opts)).toBeNull()
  })
})
