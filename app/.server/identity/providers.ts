import { AuthUriSchema, IdpSchema } from './schemas'
import type { Call } from './transport'

export function providerCalls(call: Call) {
  return {
    createAuthUri: (request: {
      providerId: string
      continueUri: string
      customParameter?: Record<string, string>
      oauthScope?: string
    }) =>
      call({
        name: 'createAuthUri',
        path: '/v1/accounts:createAuthUri',
        read: true,
        json: { ...request },
        schema: AuthUriSchema,
      }),

    signInWithIdp: (request: { requestUri: string; postBody?: string; pendingToken?: string; sessionId?: string }) =>
      call({
        name: 'signInWithIdp',
        path: '/v1/accounts:signInWithIdp',
        json: { ...request, returnSecureToken: true, returnIdpCredential: true },
        schema: IdpSchema,
      }),
  }
}
