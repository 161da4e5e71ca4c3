import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  newPasswordProblems,
  ruleStateOf,
  type PasswordChecklist,
  evaluatePassword,
  passwordProblem,
  passwordRulesAttribute,
} from './password-policy'
import { PASSWORD_MAX_LENGTH } from './limits'

const MIN = 12
const opts = { minLength: MIN }

/** Repeats `chars` (by code point) up to `length` code points. */
function fill(chars: string, length: number): string {
  const points = [...chars]
  return Array.from({ length }, (_, i) => points[i % points.length]).join('')
}

describe('character classes', () => {
  const samples = { lower: 'abcd', upper: 'WXYZ', digit: '2468', special: '!#€ ' } as const
  const names = Object.keys(samples) as (keyof typeof samples)[]
  // Every subset of the four types, as a 4-bit mask.
  const combinations = Array.from({ length: 16 }, (_, mask) => names.filter((_, bit) => mask & (1 << bit)))

  it.each(combinations.map((set) => [set.join('+') || '(none)', set] as const))('%s', (_label, set) => {
    // Interleave the chosen types so each appears; 16 code points is long enough.
    const password = set.length === 0 ? '' : fill(set.map((name) => samples[name]).join(''), 16)
    const check = evaluatePassword(password, opts)
    for (const name of names) expect(check[name], name).toBe(set.includes(name))
    expect(check.classes).toBe(set.length >= 3)
    const expected = set.length === 0 ? 'newPassword.tooShort' : set.length >= 3 ? null : 'newPassword.tooFewClasses'
    expect(passwordProblem(password, opts)).toBe(expected)
  })

  it('counts non-ASCII letters as special, not as lower or upper case', () => {
    expect(evaluatePassword('É', opts)).toMatchObject({ lower: false, upper: false, special: true })
    expect(evaluatePassword('ß', opts)).toMatchObject({ lower: false, upper: false, special: true })
    expect(passwordProblem('abcdefghij1é', opts)).toBeNull()
  })

  it('counts a space as special', () => {
    expect(passwordProblem('abcdefghij1 ', opts)).toBeNull()
  })

  it('does not treat full-width digits or letters as digits or letters', () => {
    expect(evaluatePassword('１Ａａ', opts)).toMatchObject({ lower: false, upper: false, digit: false, special: true })
  })
})

describe('length', () => {
  const withLength = (n: number) => fill('Aa1', 3) + 'a'.repeat(n - 3)

  it.each([
    [MIN - 1, 'newPassword.tooShort'],
    [MIN, null],
    [MIN + 1, null],
    [PASSWORD_MAX_LENGTH, null],
    [PASSWORD_MAX_LENGTH + 1, 'newPassword.tooLong'],
  ])('%i code points → %s', (n, expected) => {
    expect([...withLength(n)].length).toBe(n)
    expect(passwordProblem(withLength(n), opts)).toBe(expected)
  })

  it('uses the configured minimum', () => {
    expect(passwordProblem('Aa1aaaa', { minLength: 8 })).toBe('newPassword.tooShort')
    expect(passwordProblem('Aa1aaaaa', { minLength: 8 })).toBeNull()
    expect(passwordProblem(withLength(19), { minLength: 20 })).toBe('newPassword.tooShort')
    expect(passwordProblem(withLength(20), { minLength: 20 })).toBeNull()
  })

  it('reports the checklist flags at the bounds', () => {
    expect(evaluatePassword(withLength(MIN - 1), opts)).toMatchObject({ length: false, notTooLong: true })
    expect(evaluatePassword(withLength(PASSWORD_MAX_LENGTH + 1), opts)).toMatchObject({
      length: true,
      notTooLong: false,
    })
  })

  it('counts an emoji as one code point (and as special), although it is two UTF-16 units', () => {
    const eleven = 'Aa' + '😀'.repeat(9)
    expect(eleven.length).toBe(20)
    expect(passwordProblem(eleven, opts)).toBe('newPassword.tooShort')
    expect(passwordProblem(eleven + '😀', opts)).toBeNull()
    expect(evaluatePassword('😀', opts)).toMatchObject({ special: true, lower: false })
  })

  it('measures the maximum in code points too', () => {
    expect(passwordProblem('Aa1' + '😀'.repeat(PASSWORD_MAX_LENGTH - 3), opts)).toBeNull()
    expect(passwordProblem('Aa1' + '😀'.repeat(PASSWORD_MAX_LENGTH - 2), opts)).toBe('newPassword.tooLong')
  })

  it('counts a combining mark as its own code point and as special (no normalisation)', () => {
    const decomposed = 'abcdefghij1e\u0301' // 'é' written as e + U+0301
    expect([...decomposed].length).toBe(13)
    expect(evaluatePassword('abcdefghije\u0301', opts)).toMatchObject({ length: true, special: true, classes: false })
    expect(passwordProblem(decomposed, opts)).toBeNull()
    // Precomposed 'é' is one code point: 11 characters is still too short.
    expect(passwordProblem('abcdefghi1é', opts)).toBe('newPassword.tooShort')
  })

  it('reports the rules in order: short, long, classes, email', () => {
    expect(passwordProblem('jane', { minLength: MIN, email: 'jane@example.com' })).toBe('newPassword.tooShort')
    expect(passwordProblem('a'.repeat(5000), opts)).toBe('newPassword.tooLong')
    expect(passwordProblem('janejanejane', { minLength: MIN, email: 'jane@example.com' })).toBe(
      'newPassword.tooFewClasses',
    )
  })
})

describe('email local part', () => {
  const email = 'Jane.Doe@example.com'

  it.each([
    ['jane.doe!Secret1', 'newPassword.containsEmail'],
    ['JANE.DOE!Secret1', 'newPassword.containsEmail'],
    ['xxJaNe.DoE99!!', 'newPassword.containsEmail'],
    ['JaneDoe!Secret1', null], // the dot is part of the local part
    ['Jane!Secret1234', null],
    ['example.com!A1a', null], // the domain is not checked
  ])('%s → %s', (password, expected) => {
    expect(passwordProblem(password, { minLength: MIN, email })).toBe(expected)
  })

  it('ignores local parts shorter than 3 characters', () => {
    expect(passwordProblem('Jo!Secret1234', { minLength: MIN, email: 'jo@example.com' })).toBeNull()
    expect(passwordProblem('xBob!Secret1', { minLength: MIN, email: 'bob@example.com' })).toBe(
      'newPassword.containsEmail',
    )
  })

  it('counts the local part in code points', () => {
    // Two emoji are four UTF-16 units but still too short to check.
    expect(passwordProblem('😀😀Secret1234', { minLength: MIN, email: '😀😀@example.com' })).toBeNull()
  })

  it('uses the part before the last @, and the whole value without one', () => {
    expect(passwordProblem('A1!"a@b"xxxxxx', { minLength: MIN, email: '"a@b"@example.com' })).toBe(
      'newPassword.containsEmail',
    )
    expect(passwordProblem('A1!janedoexxx', { minLength: MIN, email: 'janedoe' })).toBe('newPassword.containsEmail')
  })

  it.each([undefined, null, '', '@example.com'])('no check without a usable email (%s)', (value) => {
    expect(evaluatePassword('Secret!12345', { minLength: MIN, email: value }).notEmail).toBe(true)
  })
})

describe('newPasswordProblems (the page before sending, the server after)', () => {
  const opts = { minLength: 12, email: 'camille@example.com' }
  it('names each field’s first problem', () => {
    expect(newPasswordProblems({ password: '', confirmation: '' }, opts)).toEqual({
      passwordError: 'validation.passwordRequired',
      confirmationError: 'validation.confirmRequired',
    })
    expect(newPasswordProblems({ password: 'abcdefghijklmno', confirmation: 'abcdefghijklmno' }, opts)).toEqual({
      passwordError: 'newPassword.tooFewClasses',
      confirmationError: null,
    })
    expect(newPasswordProblems({ password: 'Brand-new-Secret-77', confirmation: 'Brand-new-Secret-7' }, opts)).toEqual({
      passwordError: null,
      confirmationError: 'newPassword.mismatch',
    })
    expect(newPasswordProblems({ password: 'Brand-new-Secret-77', confirmation: 'Brand-new-Secret-77' }, opts)).toEqual({
      passwordError: null,
      confirmationError: null,
    })
  })

  it('ruleStateOf gives the checklist’s rules only, as booleans', () => {
    expect(ruleStateOf('abcdefghijklmno', opts)).toEqual({
      length: true,
      lower: true,
      upper: false,
      digit: false,
      special: false,
      classes: false,
      unguessable: false,
    })
  })
})

describe('passwordRulesAttribute', () => {
  it('describes the closest rule Apple syntax can express', () => {
    expect(passwordRulesAttribute(12)).toBe(
      'minlength: 12; maxlength: 4096; required: lower; required: upper; required: digit; allowed: special;',
    )
    expect(passwordRulesAttribute(20)).toContain('minlength: 20;')
  })

  it('is stricter than the policy: a password meeting it always passes', () => {
    const char = (set: string) => fc.constantFrom(...set)
    const lower = char('abcdefghijklmnopqrstuvwxyz')
    const upper = char('ABCDEFGHIJKLMNOPQRSTUVWXYZ')
    const digit = char('0123456789')
    const special = char('-~!@#$%^&*_+=`|(){}[:;"\'<>,.? ]')
    fc.assert(
      fc.property(
        fc.integer({ min: 6, max: 64 }),
        lower,
        upper,
        digit,
        fc.array(fc.oneof(lower, upper, digit, special), { maxLength: 64 }),
        (minLength, l, u, d, rest) => {
          const password = (l + u + d + rest.join('')).padEnd(minLength, 'x')
          expect(passwordProblem(password, { minLength })).toBeNull()
        },
      ),
    )
  })
})

describe('properties', () => {
  const anyString = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 64 }),
    fc.string({ unit: 'grapheme', maxLength: 32 }),
    fc.string({ unit: fc.constantFrom('a', 'B', '7', '!', '😀', 'é', 'e\u0301', '\u0000', '\ud800'), maxLength: 40 }),
  )
  const rules: (keyof PasswordChecklist)[] = ['length', 'notTooLong', 'classes', 'notEmail']

  it('passwordProblem never throws, and is null exactly when every rule holds', () => {
    fc.assert(
      fc.property(
        anyString,
        fc.integer({ min: 1, max: 32 }),
        fc.option(fc.oneof(fc.emailAddress(), anyString)),
        (password, minLength, email) => {
          const options = { minLength, email }
          const check = evaluatePassword(password, options)
          const problem = passwordProblem(password, options)
          expect(problem === null).toBe(rules.every((rule) => check[rule]))
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('classes is true exactly when at least 3 of 4 types are present', () => {
    fc.assert(
      fc.property(anyString, (password) => {
        const check = evaluatePassword(password, opts)
        const count = [check.lower, check.upper, check.digit, check.special].filter(Boolean).length
        expect(check.classes).toBe(count >= 3)
      }),
    )
  })
})
