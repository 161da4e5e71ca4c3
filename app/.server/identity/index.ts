import { getConfig } from '~/.server/config'
import { logger } from '~/.server/ops/logger'
import { createIdentityClient, type IdentityClient } from './client'

/** The process's identity client, created on first use from the configuration (one set of pools per process). */
let identity: IdentityClient | undefined

export function getIdentity(): IdentityClient {
  identity ??= createIdentityClient({ ...getConfig().identity, logger })
  return identity
}

export { createIdentityClient } from './client'
export type {
  ActionCodeInfo,
  AuthUriResult,
  EmailLinkSignInResult,
  IdentityClient,
  IdentityClientOptions,
  IdentityUser,
  IdpSignInResult,
  MfaFinalizeResult,
  MfaVerification,
  OobRequestType,
  ProjectConfig,
  RecaptchaConfig,
  RecaptchaEnforcement,
  RefreshResult,
  SendOobCodeRequest,
  SignInResult,
  UpdateRequest,
  UpdateResult,
} from './client'
export { parseAuthDomain } from './auth-domain'
export {
  IdentityError,
  authCodeFor,
  isAuthCode,
  isIdentityError,
  messageKeyFor,
  mfaRequiredOf,
  type AuthCode,
  type MessageKey,
  type MfaRequired,
  type SecondFactor,
} from './errors'
