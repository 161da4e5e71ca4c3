import { IdentityError } from './errors'
import { Empty, LookupSchema, PasswordChangeSchema, type Account } from './schemas'
import type { Call } from './transport'

export function signedInCalls(call: Call) {
  return {
    async lookup(idToken: string): Promise<Account> {
      // Only reads, so it is retried like the other reads (see ADR 018).
      const account = await call({
        name: 'lookup',
        path: '/v1/accounts:lookup',
        read: true,
        json: { idToken },
        schema: LookupSchema,
      })
      if (!account) throw new IdentityError('auth/user-token-expired', 200, 'USER_NOT_FOUND')
      return account
    },

    changePassword: (idToken: string, password: string) =>
      call({
        name: 'changePassword',
        path: '/v1/accounts:update',
        json: { idToken, password, returnSecureToken: true },
        schema: PasswordChangeSchema,
      }),

    async deleteAccount(idToken: string): Promise<void> {
      await call({ name: 'deleteAccount', path: '/v1/accounts:delete', json: { idToken }, schema: Empty })
    },
  }
}
