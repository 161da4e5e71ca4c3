import type { AppLoadContext } from '~/.server/context'
import { getConfig } from '~/.server/config'
import { codeOf, getIdentity, tokenClaims } from '~/.server/identity'
import { getFlags, type Flags } from '~/.server/ops/flags'
import { logger, securityEvent } from '~/.server/ops/logger'
import { checkedRedirect, type CheckedRedirect } from '~/.server/policy/redirect'
import { page, redirectTo, type Redirect, type Result } from '~/.server/result'
import type { ProviderMarkKind } from '~/lib/providers'
import { signInLink } from '~/lib/sign-in-link'
import { afterConfirmation, confirmPageWith, type ConfirmReason } from '../recent-login'
import { beginSecondFactor } from '../second-factor'
import type { Confirming } from '../second-factor/pending'
import { getSession, handleNewSession, whoOf } from '../session'
import type { SsoError } from '../sign-in-page'
import {
  CALLBACK_PATH,
  RELAY_PARAM,
  REPOST_PARAM,
  beginSso,
  callbackOriginFor,
  finishSso,
  type SsoFinish,
  type SsoSettings,
} from './protocol'
import { stateCookie } from './state-cookie'

export function ssoOffered(flags: Flags): boolean {
  return flags.sso && getConfig().ssoProviderId !== null
}

export function ssoProviderName(): string | null {
  return getConfig().ssoProviderName
}

/** Google's own mark for google.com, a neutral one for any other. */
export function ssoProviderMark(): ProviderMarkKind {
  return getConfig().ssoProviderId === 'google.com' ? 'google' : 'other'
}

export async function ssoSettings(): Promise<SsoSettings | null> {
  const config = getConfig()
  if (!config.ssoProviderId || !(await getFlags()).sso) return null
  const { emulatorOrigin, apiKey, tenantId } = config.identity
  return {
    identity: getIdentity(),
    providerId: config.ssoProviderId,
    emulator: emulatorOrigin ? { origin: emulatorOrigin, apiKey, tenantId } : null,
  }
}

const signInPageWithError = (error: SsoError, redirect: string | null) => signInLink(redirect, { ssoError: error })

// A form post may not be redirected to another origin (CSP form-action
// 'self'), so the answer is a page that moves on to the provider itself.
export async function startSso(
  request: Request,
  input: { redirect: CheckedRedirect | null; authDomain: string | null; remember: boolean; confirm: Confirming | null },
  context: AppLoadContext,
): Promise<Result<{ authUri: string }>> {
  const settings = await ssoSettings()
  const redirect = input.confirm ? null : (input.redirect?.param ?? null)
  const failed = (error: SsoError) =>
    redirectTo(
      input.confirm ? confirmPageWith(input.confirm, { ssoError: error }) : signInPageWithError(error, redirect),
    )
  if (!settings) return failed('unavailable')
  const callbackOrigin = await callbackOriginFor(input.authDomain, context.publicOrigin)
  try {
    const { authUri, state } = await beginSso(
      { redirect, callbackOrigin, remember: input.remember, confirm: input.confirm },
      settings,
    )
    return page({ authUri }, { cookies: stateCookie.write(request, state), refresh: authUri })
  } catch (error) {
    const code = codeOf(error)
    logger.warn({ event: 'sso-start-failed', code, reqId: context.requestId }, 'single sign-on could not start')
    return failed(code === 'auth/network-request-failed' ? 'unavailable' : 'provider')
  }
}

const back = (location: string, cookies: readonly string[] = []) =>
  redirectTo(location, { cookies: [...cookies, stateCookie.clear()] })

export type CallbackOutcome = Redirect | { kind: 'repost'; action: string; fields: [string, string][] }

export async function handleSsoCallback(request: Request, context: AppLoadContext): Promise<CallbackOutcome> {
  const url = new URL(request.url)
  /** The callback with its query and a marker that it was handed over once (never twice). */
  const marked = (param: string) => `${CALLBACK_PATH}?${new URLSearchParams([...url.searchParams, [param, '1']])}`
  const state = stateCookie.read(request)
  const settings = await ssoSettings()
  const publicHost = new URL(context.publicOrigin).host
  // request.url is always the public origin's (see ADR 026); the Host
  // header tells the authDomain host's callback from the public one's.
  const arrivedAt = request.headers.get('host')?.toLowerCase() ?? publicHost
  if (settings && !state && arrivedAt !== publicHost && !url.searchParams.has(RELAY_PARAM)) {
    // The authDomain host has no state cookie (host-only): hand
    // over to our own public origin, once. Never an open redirect.
    const status = request.method === 'POST' ? 307 : 303
    return redirectTo(`${context.publicOrigin}${marked(RELAY_PARAM)}`, { status })
  }

  const postBody = request.method === 'POST' ? await request.text() : null
  if (postBody !== null && !state && settings && !url.searchParams.has(REPOST_PARAM)) {
    // A form_post provider posts cross-site, so the browser withholds the Lax
    // cookie the state is bound to: our own page posts it again, same-site, once.
    return { kind: 'repost', action: marked(REPOST_PARAM), fields: [...new URLSearchParams(postBody)] }
  }
  const finish: SsoFinish = settings
    ? await finishSso({ search: url.searchParams, postBody, state }, settings)
    : { ok: false, error: 'unavailable' }
  if (state?.confirm) return confirmedByProvider(request, state.confirm, finish, context)
  // It comes back from the sealed state, so it is checked again here.
  const redirect = await checkedRedirect(state?.redirect ?? null, context.publicOrigin)
  const remember = state?.remember ?? false
  if (!finish.ok) {
    securityEvent('sign-in-failure', { ...whoOf(context), method: 'sso', reason: finish.error, code: finish.code })
    return back(signInPageWithError(finish.error, redirect?.param ?? null))
  }
  const signIn = { method: 'sso' as const, email: finish.email, redirect, remember }
  if ('mfa' in finish) {
    const step = await beginSecondFactor(request, { mfa: finish.mfa, ...signIn }, context)
    return back(step.location, step.setCookies)
  }
  try {
    const session = await handleNewSession(finish.idToken, signIn, context)
    return back(session.location, session.setCookies)
  } catch {
    return back(signInPageWithError('unavailable', redirect?.param ?? null))
  }
}

async function confirmedByProvider(
  request: Request,
  confirm: Confirming,
  finish: SsoFinish,
  context: AppLoadContext,
): Promise<Redirect> {
  const session = await getSession(request)
  // Signed out, or someone else, since the start.
  if (session.status !== 'signed-in' || session.user.uid !== confirm.uid) return back(confirmPageWith(confirm))
  const user = session.user
  const who = { ...whoOf(context, user.email), method: 'sso' }
  const refused = (reason: ConfirmReason, code?: string) => {
    securityEvent('recent-login-failure', { ...who, code })
    return back(confirmPageWith(confirm, reason))
  }
  if (!finish.ok) return refused({ ssoError: finish.error }, finish.code)
  if ('mfa' in finish) {
    const signIn = { method: 'sso' as const, email: user.email, redirect: null, remember: user.remembered, confirm }
    const step = await beginSecondFactor(request, { mfa: finish.mfa, ...signIn }, context)
    return back(step.location, step.setCookies)
  }
  if (tokenClaims(finish.idToken).uid !== user.uid) return refused({ ssoError: 'mismatch' }, 'auth/user-mismatch')
  const done = await afterConfirmation(request, user, finish.idToken, confirm, context)
  if (!done) return refused({ ssoError: 'provider' })
  securityEvent('recent-login', who)
  return back(done.location, done.setCookies)
}
