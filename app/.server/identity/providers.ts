import { AuthUriSchema, IdpSchema, type AuthUriResult, type IdpSignInResult } from './schemas'
import type { Call } from './transport'

export function providerCalls(call: Call) {
  return {
    async createAuthUri(request: {
      providerId: string
      continueUri: string
      customParameter?: Record<string, string>
      oauthScope?: string
    }): Promise<AuthUriResult> {
      return call({
        name: 'createAuthUri',
        path: '/v1/accounts:createAuthUri',
        read: true,
        json: { ...request },
        schema: AuthUriSchema,
      })
    },

    async signInWithIdp(request: {
      requestUri: string
      postBody?: string
      pendingToken?: string
      sessionId?: string
    }): Promise<IdpSignInResult> {
      return call({
        name: 'signInWithIdp',
        path: '/v1/accounts:signInWithIdp',
        json: { ...request, returnSecureToken: true, returnIdpCredential: true },
        schema: IdpSchema,
      })
    },
  }
}
