import type { AppLoadContext } from '~/.server/context'
import { z } from 'zod'
import { COOKIES } from '~/.server/cookies'
import { flowCookie } from './flow-state'
import { completeEmailLinkSignIn, emailLinkCookie, type EmailLinkMessage } from './email-link'
import { getFlags } from '~/.server/ops/flags'
import { codeOf, getIdentity, isLinkFailure, type ActionCodeInfo, type SecondFactor } from '~/.server/identity'
import { messageOf, unavailableStatus, type Unavailable } from './code-messages'
import { logger } from '~/.server/ops/logger'
import { checkedRedirect } from '~/.server/policy/redirect'
import { page, redirectTo, unavailable, type Result } from '~/.server/result'

const REQUEST_TYPES = {
  recoverEmail: 'RECOVER_EMAIL',
  verifyEmail: 'VERIFY_EMAIL',
  signIn: 'EMAIL_SIGNIN',
  verifyAndChangeEmail: 'VERIFY_AND_CHANGE_EMAIL',
  revertSecondFactorAddition: 'REVERT_SECOND_FACTOR_ADDITION',
} as const satisfies Record<string, ActionCodeInfo['requestType']>
export type EmailActionMode = keyof typeof REQUEST_TYPES

const isMode = (value: unknown): value is EmailActionMode =>
  typeof value === 'string' && Object.hasOwn(REQUEST_TYPES, value)

const CodeSchema = z.object({ mode: z.custom<EmailActionMode>(isMode), oobCode: z.string().min(1) })
const codeCookie = flowCookie(COOKIES.actionCode, CodeSchema)

// A longer query is not a link we sent: the portal repeats its
// parameters in a Location header, which proxies refuse beyond a few KB.
export const LINK_QUERY_MAX_LENGTH = 2048

const without = (params: URLSearchParams, names: string[]) =>
  new URLSearchParams([...params].filter(([name]) => !names.includes(name)))

// GETs only check the code (mail scanners open links); the 'Continue' POST spends it.
// The first GET moves the code into a cookie and reloads on a clean URL (see ADR 011).
export async function emailActionPage(request: Request, url: URL): Promise<Result<{ page: ActionPage }>> {
  const params = url.searchParams
  const mode = params.get('mode')
  const oobCode = params.get('oobCode')
  if (mode === null && oobCode === null) return pendingPage(request)
  const kind = isMode(mode) && (mode !== 'signIn' || (await getFlags()).emailLinkSignIn) ? mode : null
  const invalid = page({ page: { mode: 'invalid', kind } as const }, { status: 400 })
  if (url.search.length > LINK_QUERY_MAX_LENGTH) return invalid
  if (!oobCode || !params.get('apiKey') || (mode !== 'resetPassword' && !isMode(mode))) return invalid
  if (mode === 'resetPassword') {
    return redirectTo(`/new-password?${without(params, ['mode', 'apiKey'])}`, { status: 302 })
  }
  const kept = without(params, ['mode', 'apiKey', 'oobCode'])
  const cookies = codeCookie.write(request, { mode, oobCode })
  return redirectTo(`/action${kept.size ? `?${kept}` : ''}`, { status: 302, cookies })
}

async function readCode(request: Request): Promise<{ mode: EmailActionMode; oobCode: string } | null> {
  const code = codeCookie.read(request)
  if (code?.mode === 'signIn' && !(await getFlags()).emailLinkSignIn) return null
  return code
}

async function checkCode(mode: EmailActionMode, oobCode: string): Promise<ActionCodeInfo | Unavailable | null> {
  try {
    const info = await getIdentity().checkActionCode(oobCode)
    return info.requestType === REQUEST_TYPES[mode] ? info : null
  } catch (error) {
    const code = codeOf(error)
    if (isLinkFailure(code)) return null
    logger.warn({ event: 'action-code-check-failed', code }, 'could not check an emailed code')
    return { unavailable: unavailableStatus(code) }
  }
}

export type ActionPage =
  | { mode: 'invalid'; kind: EmailActionMode | null }
  | { mode: 'signIn'; email: string | null }
  | { mode: 'verifyEmail' | 'recoverEmail'; email: string }
  | { mode: 'revertSecondFactorAddition'; email: string; factor: SecondFactor | null }
  | { mode: 'verifyAndChangeEmail'; email: string; newEmail: string }

async function pendingPage(request: Request): Promise<Result<{ page: ActionPage }>> {
  const stored = await readCode(request)
  const info = stored && (await checkCode(stored.mode, stored.oobCode))
  if (info && 'unavailable' in info) return unavailable({ status: info.unavailable })
  const found = stored && info ? pageFor(stored.mode, info, request) : null
  if (!found) {
    return page({ page: { mode: 'invalid', kind: stored?.mode ?? null } }, { status: 400, cookies: [codeCookie.clear()] })
  }
  return page({ page: found })
}

function pageFor(mode: EmailActionMode, info: ActionCodeInfo, request: Request): ActionPage | null {
  if (mode === 'signIn') return { mode, email: emailLinkCookie.read(request)?.email ?? null }
  if (!info.email) return null
  if (mode === 'revertSecondFactorAddition') return { mode, email: info.email, factor: info.secondFactor }
  if (mode !== 'verifyAndChangeEmail') return { mode, email: info.email }
  return info.newEmail ? { mode, email: info.email, newEmail: info.newEmail } : null
}

export type ActionResult =
  | {
      status: 'done'
      mode: Exclude<EmailActionMode, 'signIn'>
      email: string
      newEmail: string | null
      continueTo: string | null
    }
  | { status: 'invalid-link'; kind: EmailActionMode | null }
  | { status: 'error'; message: EmailLinkMessage | 'validation.emailRequired'; email: string; retryAt?: number }

type ActionAnswer = Result<{ result: ActionResult }>

const INVALID_LINK = (kind: EmailActionMode | null): ActionAnswer =>
  page({ result: { status: 'invalid-link', kind } as const }, { status: 400, cookies: [codeCookie.clear()] })

export async function applyEmailAction(request: Request, typed: string, context: AppLoadContext): Promise<ActionAnswer> {
  const stored = await readCode(request)
  const continueUrl = new URL(request.url).searchParams.get('continueUrl')
  if (!stored) return INVALID_LINK(null)

  if (stored.mode === 'signIn') {
    const asked = emailLinkCookie.read(request)
    const email = asked?.email ?? typed
    const failure = (message: EmailLinkMessage | 'validation.emailRequired', status: number, retryAt?: number): ActionAnswer =>
      page({ result: { status: 'error', message, email: typed, ...(retryAt ? { retryAt } : {}) } as const }, { status })
    if (!email) return failure('validation.emailRequired', 400)
    const outcome = await completeEmailLinkSignIn(
      request,
      { email, oobCode: stored.oobCode, continueUrl, remember: asked?.remember ?? false },
      context,
    )
    if (outcome.ok) {
      return redirectTo(outcome.location, { cookies: [...outcome.setCookies, codeCookie.clear(), emailLinkCookie.clear()] })
    }
    return outcome.invalidLink ? INVALID_LINK('signIn') : failure(outcome.message, outcome.status, outcome.retryAt)
  }

  const mode = stored.mode
  const info = await checkCode(mode, stored.oobCode)
  if (info && 'unavailable' in info) return unavailable({ status: info.unavailable })
  if (!info?.email) return INVALID_LINK(mode)
  try {
    await getIdentity().update({ oobCode: stored.oobCode })
  } catch (error) {
    const code = codeOf(error)
    if (isLinkFailure(code)) return INVALID_LINK(mode)
    const { key, status } = messageOf(code)
    return page({ result: { status: 'error', message: key, email: info.email } as const }, { status })
  }
  logger.info({ event: 'email-action-applied', mode, reqId: context.requestId }, 'emailed code applied')
  const continueTo = (await checkedRedirect(continueUrl, context.publicOrigin))?.url ?? null
  const result = { status: 'done', mode, email: info.email, newEmail: info.newEmail, continueTo } as const
  return page({ result }, { cookies: [codeCookie.clear()] })
}
