import { getConfig } from '~/.server/config'
import { logger } from '~/.server/ops/logger'
import { singleton } from '~/.server/singleton'
import { createIdentityClient, type IdentityClient } from './client'

/** The process's identity client, created on first use from the configuration (one set of pools per process). */
export function getIdentity(): IdentityClient {
  return singleton('identity-client', () => {
    const { apiKey, emulatorOrigin, tenantId, projectId, timeoutMs, maxInFlight } = getConfig().identity
    return createIdentityClient({ apiKey, emulatorOrigin, tenantId, projectId, timeoutMs, maxInFlight, logger })
  })
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
  codeOf,
  isIdentityError,
  mfaRequiredOf,
  type MfaRequired,
  type SecondFactor,
} from './errors'
export {
  groupOf,
  isLinkFailure,
  messageKeyFor,
  outcomeOf,
  unavailableStatus,
  type AuthCode,
  type MessageKey,
  type OutcomeGroup,
  type Unavailable,
} from './outcomes'
