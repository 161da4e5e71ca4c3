import { describe, expect, it } from 'vitest'
import { SignInFormSchema, fieldErrorsOf } from './schemas'

function errorsOf(input: Record<string, unknown>) {
  const result = SignInFormSchema.safeParse(input)
  return result.success ? {} : fieldErrorsOf(result.error)
}

describe('the sign-in form schema', () => {
  it('accepts a trimmed address and any password', () => {
    expect(SignInFormSchema.parse({ email: '  a@example.com ', password: ' x ' })).toEqual({
      email: 'a@example.com',
      password: ' x ',
    })
  })

  it.each([
    [{ email: '', password: 'x' }, { email: 'validation.emailRequired' }],
    [{ email: 'nope', password: 'x' }, { email: 'validation.emailInvalid' }],
    [{ email: `${'a'.repeat(250)}@example.com`, password: 'x' }, { email: 'validation.emailTooLong' }],
    [{ email: 'a@example.com', password: '' }, { password: 'validation.passwordRequired' }],
    [{}, { email: 'validation.emailRequired', password: 'validation.passwordRequired' }],
    [{ email: 42, password: null }, { email: 'validation.emailRequired', password: 'validation.passwordRequired' }],
  ])('%j gives %j', (input, expected) => {
    expect(errorsOf(input)).toEqual(expected)
  })
})
