import { getConfig } from '~/.server/config'
import { logger } from '~/.server/ops/logger'
import { accountCalls } from './accounts'
import { mfaCalls } from './mfa'
import { mfaEnrollmentCalls } from './mfa-enrollment'
import { passkeyCalls } from './passkeys'
import { projectCalls } from './project'
import { providerCalls } from './providers'
import { signedInCalls } from './signed-in'
import { createTransport, type IdentityClientOptions } from './transport'

/**
 * The identity service (Firebase Auth / Google Identity Platform REST API), server side only: the
 * one entry of this folder. transport.ts carries every call, schemas.ts reads the answers, and
 * accounts.ts, signed-in.ts, providers.ts, mfa.ts, mfa-enrollment.ts, passkeys.ts and project.ts are the endpoints; errors.ts maps
 * the service's errors to our codes, and codes.ts groups them.
 */

export function createIdentityClient(options: IdentityClientOptions) {
  const { call, bounded, close } = createTransport(options)
  return {
    ...accountCalls(call),
    ...signedInCalls(call),
    ...providerCalls(call),
    ...mfaCalls(call),
    ...mfaEnrollmentCalls(call),
    ...passkeyCalls(call, options),
    ...projectCalls(call, options),
    /** Runs other work that reaches the service (firebase-admin) under this client's bound and time-out. */
    bounded,
    /** Closes the connection pool (at shutdown). */
    close,
  }
}

export type IdentityClient = ReturnType<typeof createIdentityClient>

/** The process's identity client, created on first use from the configuration (one pool per process). */
let identity: IdentityClient | undefined

export function getIdentity(): IdentityClient {
  identity ??= createIdentityClient({ ...getConfig().identity, logger })
  return identity
}

export type { SendOobCodeRequest } from './accounts'
export type { TotpEnrollment } from './mfa-enrollment'
export type { CredentialJson, PasskeyInfo } from './passkeys'
export type { MfaConfig } from './project'
export type { Account, ActionCodeInfo, PasswordChangeResult, RecaptchaConfig, RecaptchaEnforcement } from './schemas'
export { parseAuthDomain } from './auth-domain'
export {
  IdentityError,
  authCodeFor,
  codeOf,
  isIdentityError,
  mfaRequiredOf,
  type MfaRequired,
  type SecondFactor,
} from './errors'
export { groupOf, isAuthCode, isLinkFailure, type AuthCode, type CodeGroup } from './codes'
