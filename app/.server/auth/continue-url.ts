import { getConfig } from '~/.server/config'
import { signInLink } from '~/lib/sign-in-link'

export function continueUrlFor(redirect: string | null): string {
  return new URL(signInLink(redirect || null), getConfig().publicOrigin).href
}

export function redirectFromContinueUrl(continueUrl: string | null): string | null {
  if (!continueUrl) return null
  try {
    const url = new URL(continueUrl)
    return url.origin === getConfig().publicOrigin ? url.searchParams.get('redirect') : null
  } catch {
    return null
  }
}
