import { createHash } from 'node:crypto'
import type { AppLoadContext } from '~/.server/context'
import { codeOf, getIdentity, type CredentialJson } from '~/.server/identity'
import { securityEvent } from '~/.server/ops/logger'
import { getRateLimits } from '~/.server/policy/rate-limit'
import { page, redirectTo, unavailable, type Result } from '~/.server/result'
import { FACTOR_NAME_MAX_LENGTH, limitMessage } from '~/lib/limits'
import type { ConfirmedUser } from './account'
import { readAccount, readPasskeys } from './identity-admin'
import { checkAnswer, clearChallenge, issueChallenge } from './passkey-challenge'
import { creationOptions } from './passkey-options'
import { confirmStep } from './recent-login'
import { whoOf } from './session'

/** A passkey is named by a digest of its credential id (ref), so no id reaches a URL or a log. */

export const PASSKEYS_PATH = '/account/passkeys'
export const ADD_PATH = `${PASSKEYS_PATH}/add`
export const removalPath = (ref: string) => `${PASSKEYS_PATH}/remove?${new URLSearchParams({ passkey: ref })}`

export const refOf = (credentialId: string) => createHash('sha256').update(credentialId).digest('base64url').slice(0, 22)

export async function listPasskeys(uid: string) {
  const [passkeys, account] = await Promise.all([readPasskeys(uid), readAccount(uid)])
  return {
    passkeys: passkeys.map((p) => ({ ref: refOf(p.credentialId), name: p.name, credentialId: p.credentialId })),
    otherWayIn: account.providers.length > 0,
  }
}

export type EnrolAnswer =
  | { options: Record<string, unknown> }
  | { location: string }
  | { error: 'passkey.refused' | 'passkey.timedOut' | 'passkey.exists' | 'error.tooManyRequests' | 'error.unexpected' }

const failed = (error: Extract<EnrolAnswer, { error: string }>['error'], status: number, cookies: string[] = []) =>
  page<EnrolAnswer>({ error }, { status, cookies })

export async function startEnrolment(
  request: Request,
  { user, idToken }: ConfirmedUser,
  context: AppLoadContext,
): Promise<Result<EnrolAnswer>> {
  const limit = await getRateLimits().consumeEnrolStart({ ...whoOf(context), account: user.uid })
  if (!limit.ok) return page<EnrolAnswer>({ error: 'error.tooManyRequests' }, { status: 429, retryAfter: limit.retryAfterSeconds })
  try {
    const served = await getIdentity().startPasskeyEnrollment(idToken)
    const { challenge, setCookies } = issueChallenge(request, String(served.challenge ?? ''), 'create')
    const options = creationOptions(served, challenge)
    if (!options || !challenge) return failed('passkey.refused', 503)
    return page<EnrolAnswer>({ options }, { cookies: setCookies })
  } catch (error) {
    if (codeOf(error) === 'auth/requires-recent-login') return confirmStep(ADD_PATH)
    await limit.release('no-verdict')
    return failed('error.unexpected', 503)
  }
}

export async function finishEnrolment(
  request: Request,
  { user, idToken }: ConfirmedUser,
  input: { credential: CredentialJson; name: string },
  context: AppLoadContext,
): Promise<Result<EnrolAnswer>> {
  const cookies = [clearChallenge()]
  const bound = await checkAnswer(request, input.credential, { ceremony: 'create', origin: context.publicOrigin })
  if (!bound.ok) return failed(bound.reason === 'expired' ? 'passkey.timedOut' : 'passkey.refused', 400, cookies)
  const name = input.name.trim().slice(0, FACTOR_NAME_MAX_LENGTH)
  try {
    await getIdentity().finalizePasskeyEnrollment(idToken, input.credential, name)
  } catch (error) {
    const code = codeOf(error)
    if (code === 'auth/requires-recent-login') return confirmStep(ADD_PATH)
    if (code === 'auth/credential-already-in-use') return failed('passkey.exists', 400, cookies)
    return failed(code === 'auth/internal-error' || code === 'auth/network-request-failed' ? 'error.unexpected' : 'passkey.refused', 400, cookies)
  }
  securityEvent('passkey-added', whoOf(context, user.email))
  return page<EnrolAnswer>({ location: '/account?done=passkey-added' }, { cookies })
}

export type PasskeyRemoval = { formError: 'passkeys.lastMethod' | 'error.tooManyRequestsAt' | 'error.unexpected'; retryAt?: number }

export async function removePasskey(
  request: Request,
  { user, idToken }: ConfirmedUser,
  ref: string,
  context: AppLoadContext,
): Promise<Result<PasskeyRemoval>> {
  const listed = await listPasskeys(user.uid).catch(() => null)
  if (!listed) return unavailable()
  const passkey = listed.passkeys.find((p) => p.ref === ref)
  if (!passkey) return redirectTo('/account')
  if (!listed.otherWayIn && listed.passkeys.length === 1) return page({ formError: 'passkeys.lastMethod' } as const, { status: 400 })
  const limit = await getRateLimits().consumeNewPassword(whoOf(context))
  if (!limit.ok) {
    const data = { formError: 'error.tooManyRequestsAt', ...limitMessage(limit.retryAfterSeconds) } as const
    return page(data, { status: 429, retryAfter: limit.retryAfterSeconds })
  }
  try {
    await getIdentity().deletePasskey(idToken, passkey.credentialId)
  } catch (error) {
    if (codeOf(error) === 'auth/requires-recent-login') return confirmStep(removalPath(ref))
    await limit.release('no-verdict')
    return page({ formError: 'error.unexpected' } as const, { status: 503 })
  }
  await limit.release('success')
  securityEvent('passkey-removed', whoOf(context, user.email))
  return redirectTo('/account?done=passkey-removed')
}
