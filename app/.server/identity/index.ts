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
    bounded,
    close,
  }
}

export type IdentityClient = ReturnType<typeof createIdentityClient>

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
  groupOf,
  isAuthCode,
  isLinkFailure,
  type AuthCode,
  type CodeGroup,
} from './errors'
