import { describe, expect, it } from 'vitest'
import { dictionary } from '@zxcvbn-ts/language-common'
import { COMMON_WORDS } from '~/lib/common-words'
import { guessabilityProblem } from '~/lib/guessability'
import { commonPasswordCount, isCommonPassword, refuseNewPassword, serverPasswordProblem } from './common-passwords'

describe('isCommonPassword', () => {
  it('ships the full zxcvbn-ts list (at least 10,000 entries)', async () => {
    expect(await commonPasswordCount()).toBeGreaterThanOrEqual(10_000)
  })

  // Entries verified to be in @zxcvbn-ts/language-common 4.1.3 (the list is all lower case).
  it.each(['password1234', 'qwerty123456', '1qaz2wsx3edc', 'p@ssw0rd', 'trustno1', 'iloveyou'])('%s', async (entry) => {
    expect(await isCommonPassword(entry)).toBe(true)
  })

  it('compares case-insensitively', async () => {
    expect(await isCommonPassword('Password1234')).toBe(true)
    expect(await isCommonPassword('PASSWORD1234')).toBe(true)
    expect(await isCommonPassword('P@ssW0rd')).toBe(true)
  })

  it.each(['', 'correct horse battery staple', 'Tr0ub4dor&3x!', 'password1234 ', 'p@ssw0rd😀'])(
    'does not flag %j',
    async (password) => {
      expect(await isCommonPassword(password)).toBe(false)
    },
  )
})

describe('serverPasswordProblem', () => {
  const opts = { minLength: 12 }

  it('refuses passwords that meet the rules but are common', async () => {
    expect(await serverPasswordProblem('Password1234', opts)).toBe('newPassword.tooCommon')
    expect(await serverPasswordProblem('1Qaz2wsx3edc', opts)).toBe('newPassword.tooCommon')
    expect(await serverPasswordProblem('Qwerty123456', opts)).toBe('newPassword.tooCommon')
  })

  it('reports the shared rules first, with the same keys as the browser hints', async () => {
    expect(await serverPasswordProblem('p@ssw0rd', opts)).toBe('newPassword.tooShort')
    expect(await serverPasswordProblem('password1234', opts)).toBe('newPassword.tooFewClasses')
    expect(await serverPasswordProblem('Password1234', { minLength: 12, email: 'password@example.com' })).toBe(
      'newPassword.containsEmail',
    )
  })

  it('accepts a strong, uncommon password', async () => {
    expect(await serverPasswordProblem('Tr0ub4dor&3x!', opts)).toBeNull()
    expect(await serverPasswordProblem('correct Horse battery staple', opts)).toBeNull()
  })
})

describe('guessability on the server: zxcvbn-ts with every dictionary (ADR 039, ADR 062)', () => {
  const policy = { minLength: 12, email: 'camille.durand@example.fr' }

  it.each([
    ['Password1234!', 'newPassword.guessableWord'],
    ['Azerty123!!!', 'newPassword.guessableWord'],
    ['Soleil2024!!', 'newPassword.guessableWord'],
    ['Camille2026!!', 'newPassword.guessableEmail'],
    ['Durand.1990!!', 'newPassword.guessableEmail'],
    ['Zyxwvu987654!', 'newPassword.guessablePattern'],
  ])('refuses %s: %s', async (password, reason) => {
    expect(await serverPasswordProblem(password, policy)).toBe(reason)
  })

  it.each(['violet-Tundra-mosaic-48', 'Brand-new-Secret-77', 'Tr0ub4dor&3x!', 'correct Horse battery staple'])(
    'accepts %s',
    async (password) => {
      expect(await serverPasswordProblem(password, policy)).toBeNull()
    },
  )

  it('names the rule in the checklist of a refused password', async () => {
    expect(await refuseNewPassword({ password: 'Password1234!', confirmation: 'Password1234!' }, policy)).toMatchObject({
      passwordError: 'newPassword.guessableWord',
      rules: { length: true, classes: true, unguessable: false },
    })
  })

  it.each([
    ['Grenouille-2025', 'French'],
    ['Parapluie#Rouge', 'French'],
    ['Butterfly-2025', 'English'],
    ['Kitchen#Window', 'English'],
  ])('refuses %s, made of %s dictionary words the browser does not know', async (password) => {
    expect(guessabilityProblem(password, policy)).toBeNull()
    expect(await serverPasswordProblem(password, policy)).toBe('newPassword.guessableWord')
  })

  it('refuses every password the browser refuses in its tests (app/lib/guessability.test.ts)', async () => {
    const refusedByBrowser = [
      'Password1234!', 'P@ssw0rd2024!', 'Superman1985!', 'Azerty123456!', 'Qwertyuiop12!', 'Abcdefgh1234!',
      'aaaaaaaaaaaA1!', 'Camille2026!!', 'Durand.1990!', 'camille.durand1', 'Football!Soccer1', 'Zxcvbnm!2024',
    ]
    for (const password of refusedByBrowser) {
      expect(guessabilityProblem(password, policy), password).not.toBeNull()
      expect(await serverPasswordProblem(password, policy), password).not.toBeNull()
    }
  })

  it('the browser has the head of the same list', () => {
    const head = dictionary['passwords-common'].flatMap((word, index) =>
      /^[a-z]{4,}$/.test(word) ? [[word, index + 1]] : [],
    )
    expect(Object.entries(COMMON_WORDS)).toEqual(head.slice(0, Object.keys(COMMON_WORDS).length))
  })
})
