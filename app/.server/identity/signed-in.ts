import { IdentityError } from './errors'
import { Empty, LookupSchema, PasswordChangeSchema, type Account, type PasswordChangeResult } from './schemas'
import type { Call } from './transport'

/**
 * The calls made with the signed-in visitor's own ID token: reading the account, changing its
 * password, deleting it. Sending a verification or an email-change link is sendOobCode
 * (accounts.ts) with VERIFY_EMAIL or VERIFY_AND_CHANGE_EMAIL. Password, email and deletion need a
 * recent sign-in: an older token is refused with auth/requires-recent-login.
 */
export function signedInCalls(call: Call) {
  return {
    /** The account the token names; auth/user-token-expired when it is gone. */
    async lookup(idToken: string): Promise<Account> {
      // Only reads, so it is retried like the other reads (ADR 018).
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

    /** Sets a new password; every token minted before stops working, so the answer carries new ones. */
    changePassword: (idToken: string, password: string): Promise<PasswordChangeResult> =>
      call({
        name: 'changePassword',
        path: '/v1/accounts:update',
        json: { idToken, password, returnSecureToken: true },
        schema: PasswordChangeSchema,
      }),

    /** Deletes the account the token names. */
    async deleteAccount(idToken: string): Promise<void> {
      await call({ name: 'deleteAccount', path: '/v1/accounts:delete', json: { idToken }, schema: Empty })
    },
  }
}
