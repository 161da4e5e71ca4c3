import { z } from 'zod'
import type { AppLoadContext } from '~/.server/context'
import { COOKIES } from '~/.server/cookies'
import { getConfig } from '~/.server/config'
import { refuseNewPassword, refusedByService, type PasswordRefusal } from '~/.server/policy/common-passwords'
import { codeOf, getIdentity, isLinkFailure } from '~/.server/identity'
import { refusalOf, unavailableStatus, type MessageKey } from '~/.server/auth/code-messages'
import { getRateLimits } from '~/.server/policy/rate-limit'
import { page, redirectTo, unavailable, type Result } from '~/.server/result'
import { redirectFromContinueUrl } from '~/.server/auth/continue-url'
import { LINK_QUERY_MAX_LENGTH } from '~/.server/auth/email-actions'
import { signInLink } from '~/lib/sign-in-link'
import { limitMessage } from '~/lib/limits'
import { flowCookie } from '~/.server/auth/flow-state'
import { logger, securityEvent } from '~/.server/ops/logger'
import { revokeSessions, uidOf } from '~/.server/auth/identity-admin'
import { whoOf } from '~/.server/auth/session'

/** Path=/ because React Router's data requests go to /new-password.data. */
const resetCodeCookie = flowCookie(COOKIES.resetCode, z.string().min(1))

const resetDoneCookie = flowCookie(COOKIES.resetDone, z.literal(true))

export type NewPasswordPage =
  | { state: 'form'; email: string; minLength: number; signIn: string }
  | { state: 'invalid'; email: null; minLength: number; signIn: string }
  | { state: 'done'; email: null; minLength: 0; signIn: string }

/** GET checks the code without spending it: mail scanners open links. */
export async function newPasswordPage(request: Request, url: URL): Promise<Result<NewPasswordPage>> {
  const fromLink = url.searchParams.get('oobCode')
  // A link's other parameters go into the Location header: a very long query is not one of our links.
  const tooLong = fromLink !== null && url.search.length > LINK_QUERY_MAX_LENGTH
  if (fromLink && !tooLong) {
    const cookies = [...resetCodeCookie.write(request, fromLink), resetDoneCookie.clear()]
    return redirectTo(cleanAddress(url.searchParams), { status: 302, cookies })
  }
  const signIn = signInLink(carriedRedirect(url.searchParams))
  if (!tooLong && resetDoneCookie.read(request) === true) return page({ state: 'done', email: null, minLength: 0, signIn })
  const minLength = getConfig().passwordMinLength
  const check = await checkResetCode(tooLong ? null : resetCodeCookie.read(request))
  if (check === 'invalid') {
    return page({ state: 'invalid', email: null, minLength, signIn }, { status: 400, cookies: [resetCodeCookie.clear()] })
  }
  if (typeof check !== 'string') return unavailable({ status: check.unavailable })
  return page({ state: 'form', email: check, minLength, signIn })
}

async function checkResetCode(oobCode: string | null): Promise<string | 'invalid' | { unavailable: 429 | 503 }> {
  if (!oobCode) return 'invalid'
  try {
    const info = await getIdentity().checkActionCode(oobCode)
    return info.requestType === 'PASSWORD_RESET' && info.email ? info.email : 'invalid'
  } catch (error) {
    const code = codeOf(error)
    return isLinkFailure(code) ? 'invalid' : { unavailable: unavailableStatus(code) }
  }
}

function cleanAddress(search: URLSearchParams): string {
  const redirect = carriedRedirect(search)
  return redirect ? `/new-password?${new URLSearchParams({ redirect })}` : '/new-password'
}

function carriedRedirect(search: URLSearchParams): string | null {
  return search.get('redirect') || redirectFromContinueUrl(search.get('continueUrl'))
}

export type NewPasswordRefusal =
  | { status: 'invalid-link' }
  | ({ status: 'invalid' } & PasswordRefusal)
  | { status: 'error'; message: MessageKey | 'error.tooManyRequestsAt'; retryAt?: number }

const INVALID_LINK = () => page({ status: 'invalid-link' } as const, { status: 400, cookies: [resetCodeCookie.clear()] })

export async function completePasswordReset(
  request: Request,
  url: URL,
  input: { password: string; confirmation: string },
  context: AppLoadContext,
): Promise<Result<NewPasswordRefusal>> {
  const limit = await getRateLimits().consumeNewPassword(whoOf(context))
  if (!limit.ok) {
    return page({ status: 'error', message: 'error.tooManyRequestsAt', ...limitMessage(limit.retryAfterSeconds) } as const, { status: 429 })
  }
  const oobCode = resetCodeCookie.read(request)
  if (!oobCode) return INVALID_LINK()

  let email: string
  try {
    const info = await getIdentity().checkActionCode(oobCode)
    if (info.requestType !== 'PASSWORD_RESET' || !info.email) return INVALID_LINK()
    email = info.email
  } catch (error) {
    return failure(error, limit)
  }

  const policy = { minLength: getConfig().passwordMinLength, email }
  const refusal = await refuseNewPassword(input, policy)
  if (refusal) return page({ status: 'invalid', ...refusal } as const, { status: 400 })

  try {
    await getIdentity().resetPassword(oobCode, input.password)
  } catch (error) {
    if (codeOf(error) === 'auth/weak-password') {
      return page({ status: 'invalid', ...(await refusedByService(input.password, policy)) } as const, { status: 400 })
    }
    return failure(error, limit)
  }
  await limit.release('success')
  const uid = await uidOf(email)
  if (uid) {
    await revokeSessions(uid).catch((error: unknown) =>
      logger.warn({ event: 'revoke-failed', code: (error as { code?: string }).code }, 'could not end the sessions'),
    )
  }
  securityEvent('reset-done', whoOf(context, email))
  return redirectTo(cleanAddress(url.searchParams), { cookies: [resetCodeCookie.clear(), ...resetDoneCookie.write(request, true)] })
}

async function failure(error: unknown, attempt: { release(outcome: 'no-verdict'): Promise<void> }) {
  const { code, key, status } = await refusalOf(error, attempt)
  if (isLinkFailure(code)) return INVALID_LINK()
  return page({ status: 'error', message: key } as const, { status })
}
