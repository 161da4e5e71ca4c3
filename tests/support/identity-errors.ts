import { expect } from 'vitest'
import { IdentityError, type AuthCode } from '../../app/.server/identity'

/** The IdentityError a call fails with; the test fails when the call succeeds or throws anything else. */
export async function failure(promise: Promise<unknown>): Promise<IdentityError> {
  const error: unknown = await promise.then(
    () => {
      throw new Error('expected the call to fail')
    },
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(IdentityError)
  return error as IdentityError
}

/** The auth/* code a call fails with. */
export async function codeOf(promise: Promise<unknown>): Promise<AuthCode> {
  return (await failure(promise)).code
}
