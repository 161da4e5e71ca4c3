import { COOKIES, clearCookie } from '~/.server/cookies'
import { openForBrowser, sealForBrowser } from '~/.server/policy/csrf'
import { confirmingOf } from '../second-factor/pending'
import type { SsoState } from './protocol'

/**
 * The pending sign-in, sealed to this browser (ADR 017): a state planted from another browser is
 * refused. SameSite=None over https: a form_post provider returns with a cross-site POST, which
 * would not carry a Lax cookie.
 */
const STATE_COOKIE = COOKIES.ssoState

export function clearStateCookie(): string {
  return clearCookie(STATE_COOKIE)
}

export function readState(request: Request): SsoState | null {
  const value = openForBrowser(request, STATE_COOKIE)
  if (!value) return null
  try {
    const state = JSON.parse(value) as Partial<SsoState>
    if (
      typeof state.sessionId !== 'string' ||
      typeof state.callbackOrigin !== 'string' ||
      typeof state.nonce !== 'string'
    )
      return null
    return {
      sessionId: state.sessionId,
      callbackOrigin: state.callbackOrigin,
      nonce: state.nonce,
      redirect: typeof state.redirect === 'string' ? state.redirect : null,
      remember: state.remember === true,
      confirm: confirmingOf(state.confirm),
    }
  } catch {
    return null
  }
}

/** The Set-Cookie values that keep the state for this browser. */
export function sealState(request: Request, state: SsoState): string[] {
  return sealForBrowser(request, STATE_COOKIE, JSON.stringify(state))
}
