import { z } from 'zod'
import type { Call } from './transport'

export type CredentialJson = { id: string; rawId: string; type: 'public-key'; response: Record<string, unknown> }

const Options = z.record(z.string(), z.unknown())
const SignInOptions = z.object({ credentialRequestOptions: Options }).transform((r) => r.credentialRequestOptions)
const EnrolOptions = z.object({ credentialCreationOptions: Options }).transform((r) => r.credentialCreationOptions)
const TokenSchema = z.object({ idToken: z.string().min(1) })
const PasskeyListSchema = z.object({
  users: z
    .array(
      z.object({
        passkeyInfo: z.array(z.object({ credentialId: z.string().min(1), name: z.string().default('') })).default([]),
      }),
    )
    .default([]),
})

export function passkeyCalls(call: Call, options: { projectId: string }) {
  return {
    startPasskeySignIn: () =>
      call({ name: 'passkeySignInStart', path: '/v2/accounts/passkeySignIn:start', json: {}, schema: SignInOptions }),

    finalizePasskeySignIn: (credential: CredentialJson) =>
      call({
        name: 'passkeySignInFinalize',
        path: '/v2/accounts/passkeySignIn:finalize',
        json: { authenticatorAuthenticationResponse: credential },
        schema: TokenSchema,
      }),

    startPasskeyEnrollment: (idToken: string) =>
      call({
        name: 'passkeyEnrollmentStart',
        path: '/v2/accounts/passkeyEnrollment:start',
        json: { idToken },
        schema: EnrolOptions,
      }),

    finalizePasskeyEnrollment: (idToken: string, credential: CredentialJson, name: string) =>
      call({
        name: 'passkeyEnrollmentFinalize',
        path: '/v2/accounts/passkeyEnrollment:finalize',
        json: { idToken, authenticatorRegistrationResponse: credential, name, displayName: name },
        schema: TokenSchema,
      }),

    deletePasskey: (idToken: string, credentialId: string) =>
      call({
        name: 'deletePasskey',
        path: '/v1/accounts:update',
        json: { idToken, deletePasskey: [credentialId] },
        schema: z.object({}),
      }),

    async passkeysOf(uid: string, accessToken: string) {
      const answer = await call({
        name: 'passkeyList',
        path: `/v1/projects/${encodeURIComponent(options.projectId)}/accounts:lookup`,
        read: true,
        headers: { authorization: `Bearer ${accessToken}` },
        json: { localId: [uid] },
        schema: PasskeyListSchema,
      })
      return answer.users[0]?.passkeyInfo ?? []
    },
  }
}
