import { AuthUriSchema, IdpSchema, type AuthUriResult, type IdpSignInResult } from './schemas'
import type { Call } from './transport'

/** Sign-in with an identity provider (single sign-on): `accounts:createAuthUri`, then `accounts:signInWithIdp`. */
export function providerCalls(call: Call) {
  return {
    /** The provider's sign-in URL (authUri) and the sessionId to give back to signInWithIdp. */
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

    /** Completes a provider sign-in: postBody (the provider's answer) or pendingToken. */
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
