import { describe, expect, it } from 'vitest'
import { dictionary } from '@zxcvbn-ts/language-common'
import { COMMON_WORDS } from '~/lib/common-words'
import { commonPasswordCount, commonWords, isCommonPassword, refuseNewPassword, serverPasswordProblem } from './common-passwords'

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

describe('guessability on the server, with every common word (ADR 039)', () => {
  const policy = { minLength: 12, email: 'camille.durand@example.fr' }

  it.each([
    ['Password1234!', 'newPassword.guessableWord'],
    ['Azerty123!!!', 'newPassword.guessableWord'],
    ['Soleil2024!!', 'newPassword.guessableWord'],
    ['Camille2026!!', 'newPassword.guessableEmail'],
    ['Durand.1990!!', 'newPassword.guessableEmail'],
    ['Zyxwvu987654!', 'newPassword.guessablePattern'],
  ])('refuses %s: %s', (password, reason) => {
    expect(serverPasswordProblem(password, policy)).toBe(reason)
  })

  it.each(['violet-Tundra-mosaic-48', 'Brand-new-Secret-77', 'Tr0ub4dor&3x!', 'correct Horse battery staple'])(
    'accepts %s',
    (password) => {
      expect(serverPasswordProblem(password, policy)).toBeNull()
    },
  )

  it('names the rule in the checklist of a refused password', () => {
    expect(refuseNewPassword({ password: 'Password1234!', confirmation: 'Password1234!' }, policy)).toMatchObject({
      passwordError: 'newPassword.guessableWord',
      rules: { length: true, classes: true, unguessable: false },
    })
  })

  it('knows more than the browser, which has the head of the same list', () => {
    const head = dictionary.passwords.flatMap((word, index) => (/^[a-z]{4,}$/.test(word) ? [[word, index + 1]] : []))
    expect(Object.entries(COMMON_WORDS)).toEqual(head.slice(0, Object.keys(COMMON_WORDS).length))
    expect(commonWords().size).toBeGreaterThan(50_000)
  })
})
