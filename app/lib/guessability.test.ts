import { describe, expect, it } from 'vitest'
import { COMMON_WORDS } from './common-words'
import { estimateGuesses, guessabilityProblem, MIN_GUESSES_LOG10 } from './guessability'
import { newPasswordProblems } from './password-policy'

/** The judgement the browser makes, with its short word list (the server's, with every word, is in common-passwords.test.ts). */
const email = 'camille.durand@example.fr'

describe('guessabilityProblem in the browser', () => {
  it.each([
    ['Password1234!', 'newPassword.guessableWord'],
    ['P@ssw0rd2024!', 'newPassword.guessableWord'],
    ['Superman1985!', 'newPassword.guessableWord'],
    ['Azerty123456!', 'newPassword.guessablePattern'],
    ['Qwertyuiop12!', 'newPassword.guessableWord'],
    ['Abcdefgh1234!', 'newPassword.guessablePattern'],
    ['aaaaaaaaaaaA1!', 'newPassword.guessablePattern'],
    ['Camille2026!!', 'newPassword.guessableEmail'],
    ['Durand.1990!', 'newPassword.guessableEmail'],
    ['camille.durand1', 'newPassword.guessableEmail'],
  ])('%s → %s', (password, reason) => {
    expect(guessabilityProblem(password, { email })).toBe(reason)
  })

  it.each(['violet-Tundra-mosaic-48', 'Brand-new-Secret-77', 'Xk9#mQ2$vL7!pe', 'correct Horse battery staple'])(
    'accepts %s',
    (password) => {
      expect(guessabilityProblem(password, { email })).toBeNull()
    },
  )

  it('counts what is added to a common word as more guesses', () => {
    expect(estimateGuesses('Password1234!').log10).toBeLessThan(estimateGuesses('Password1234!x7Rq').log10)
    expect(estimateGuesses('Password1234!').log10).toBeLessThan(MIN_GUESSES_LOG10)
  })

  it('reads the address only when there is one', () => {
    expect(guessabilityProblem('Camille2026!!', { email })).toBe('newPassword.guessableEmail')
    expect(guessabilityProblem('Camille2026!!', {})).not.toBe('newPassword.guessableEmail')
  })

  it('judges a very long password on its start, quickly', () => {
    expect(guessabilityProblem(`${'a'.repeat(5000)}Z9!`)).toBe('newPassword.guessablePattern')
    expect(guessabilityProblem('Xk9#mQ2$vL7!pe'.repeat(300))).toBeNull()
  })

  it('ships a short list, most common first', () => {
    const ranks = Object.values(COMMON_WORDS)
    expect(ranks.length).toBe(100)
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b))
  })

  it('is part of what the page checks before sending', () => {
    expect(newPasswordProblems({ password: 'Password1234!', confirmation: 'Password1234!' }, { minLength: 12 })).toEqual({
      passwordError: 'newPassword.guessableWord',
      confirmationError: null,
    })
  })
})
