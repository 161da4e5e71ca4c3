import { CSRF_FIELD } from './form-fields'
import type { TranslationKey } from './i18n'

/** What the passkey routes answer a page's script: the ceremony's options, where to go, or a message. */
export type PasskeyReply = { options: Record<string, unknown> } | { location: string } | { error: TranslationKey }

/** Posts a passkey step (with the page's CSRF token) and reads its JSON answer; anything else is a failure. */
export async function postPasskey(path: string, csrf: string, fields: Record<string, string>): Promise<PasskeyReply> {
  const body = new FormData()
  body.set(CSRF_FIELD, csrf)
  for (const [name, value] of Object.entries(fields)) body.set(name, value)
  try {
    const response = await fetch(path, { method: 'POST', body, headers: { accept: 'application/json' } })
    const reply = (await response.json()) as Partial<PasskeyReply>
    return 'options' in reply || 'location' in reply || 'error' in reply ? (reply as PasskeyReply) : { error: 'error.unexpected' }
  } catch {
    return { error: 'error.unexpected' }
  }
}

/**
 * What a failed ceremony tells the visitor: nothing when they cancelled it (or the page aborted
 * it), a time-out when the browser gave up at the options' timeout, else the service's refusal.
 */
export function ceremonyFailure(error: unknown, startedAt: number, timeoutMs: number): TranslationKey | null {
  const name = error instanceof DOMException ? error.name : ''
  if (name === 'AbortError') return null
  if (name === 'NotAllowedError') return Date.now() - startedAt >= timeoutMs ? 'passkey.timedOut' : null
  if (name === 'InvalidStateError') return 'passkey.exists'
  return 'passkey.refused'
}
