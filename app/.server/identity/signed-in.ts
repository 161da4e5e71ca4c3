import { Empty, PasswordChangeSchema } from './schemas'
import type { Call } from './transport'

export function signedInCalls(call: Call) {
  return {
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
