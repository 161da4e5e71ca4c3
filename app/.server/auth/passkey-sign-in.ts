import type { AppLoadContext } from '~/.server/context'
import { codeOf, getIdentity, isIdentityError, tokenClaims, type CredentialJson } from '~/.server/identity'
import { metrics } from '~/.server/ops/metrics'
import { securityEvent } from '~/.server/ops/logger'
import { getRateLimits } from '~/.server/policy/rate-limit'
import type { CheckedRedirect } from '~/.server/policy/redirect'
import { page, type Result } from '~/.server/result'
import { checkAnswer, clearChallenge, issueChallenge } from './passkey-challenge'
import { requestOptions } from './passkey-options'
import { afterFirstFactor } from './first-factor'
import { whoOf } from './session'

export type PasskeyMessage =
  | 'passkey.notFound'
  | 'passkey.disabled'
  | 'passkey.refused'
  | 'passkey.timedOut'
  | 'error.tooManyRequests'
  | 'error.unexpected'

export type PasskeyAnswer = { options: Record<string, unknown> } | { location: string } | { error: PasskeyMessage }

const failed = (error: PasskeyMessage, status: number, extras: { retryAfter?: number; cookies?: string[] } = {}) =>
  page<PasskeyAnswer>({ error }, { status, ...extras })

export async function startPasskeySignIn(request: Request, context: AppLoadContext): Promise<Result<PasskeyAnswer>> {
  const limit = await getRateLimits().consumePasskey(whoOf(context))
  if (!limit.ok) return failed('error.tooManyRequests', 429, { retryAfter: limit.retryAfterSeconds })
  try {
    const served = await getIdentity().startPasskeySignIn()
    const { challenge, setCookies } = issueChallenge(request, String(served.challenge ?? ''), 'get')
    const options = requestOptions(served, challenge)
    if (!options || !challenge) return failed('passkey.refused', 503)
    return page<PasskeyAnswer>({ options }, { cookies: setCookies })
  } catch {
    await limit.release('no-verdict')
    return failed('error.unexpected', 503)
  }
}

export async function finishPasskeySignIn(
  request: Request,
  input: { credential: CredentialJson; redirect: CheckedRedirect | null; remember: boolean },
  context: AppLoadContext,
): Promise<Result<PasskeyAnswer>> {
  const who = { ...whoOf(context), method: 'passkey' }
  const limit = await getRateLimits().consumePasskey({ ...whoOf(context), credential: input.credential.id })
  if (!limit.ok) return failed('error.tooManyRequests', 429, { retryAfter: limit.retryAfterSeconds })
  const cookies = [clearChallenge()]
  const bound = await checkAnswer(request, input.credential, { ceremony: 'get', origin: context.publicOrigin })
  if (!bound.ok) {
    securityEvent('passkey-refused', { ...who, reason: bound.reason })
    return failed(bound.reason === 'expired' ? 'passkey.timedOut' : 'passkey.refused', 400, { cookies })
  }
  const first = { method: 'passkey' as const, email: '', redirect: input.redirect, remember: input.remember }
  const signedIn = await afterFirstFactor(
    request,
    limit,
    first,
    async () => {
      const { idToken } = await getIdentity().finalizePasskeySignIn(input.credential)
      return { idToken, email: tokenClaims(idToken).email ?? '' }
    },
    context,
  )
  if (signedIn.ok) return page<PasskeyAnswer>({ location: signedIn.location }, { cookies: [...cookies, ...signedIn.setCookies] })
  const code = codeOf(signedIn.error)
  securityEvent('sign-in-failure', { ...who, code })
  metrics.signIn.inc({ outcome: code })
  const status = isIdentityError(signedIn.error) ? (signedIn.error.status ?? 503) : 503
  const verdict = code === 'auth/passkey-not-found' || code === 'auth/user-disabled' || (status >= 400 && status < 500 && status !== 429)
  await limit.release(verdict ? 'failure' : 'no-verdict')
  if (code === 'auth/passkey-not-found') return failed('passkey.notFound', 400, { cookies })
  if (code === 'auth/user-disabled') return failed('passkey.disabled', 400, { cookies })
  if (code === 'auth/too-many-requests') return failed('error.tooManyRequests', 429, { cookies })
  return verdict ? failed('passkey.refused', 400, { cookies }) : failed('error.unexpected', 503, { cookies })
}
