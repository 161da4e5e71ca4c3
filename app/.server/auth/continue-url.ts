import { getConfig } from '~/.server/config'
import { signInLink } from '~/lib/sign-in-link'

/**
 * The continueUrl of the links the portal emails (sign-in link, password reset): the sign-in page
 * on our origin, carrying the `redirect` already checked. Built here, and read back only from there.
 */
export function continueUrlFor(redirect: string | null): string {
  return new URL(signInLink(redirect || null), getConfig().publicOrigin).href
}

/**
 * The `redirect` a continueUrl carries when it is on our origin (see continueUrlFor); anything
 * else carries none. Whoever follows it checks it again (signInWithIdToken, the sign-in form).
 */
export function redirectFromContinueUrl(continueUrl: string | null): string | null {
  if (!continueUrl) return null
  try {
    const url = new URL(continueUrl)
    return url.origin === getConfig().publicOrigin ? url.searchParams.get('redirect') : null
  } catch {
    return null
  }
}
