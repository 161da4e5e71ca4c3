import { CSRF_FIELD } from './form-fields'
import type { TranslationKey } from './i18n'

export type PasskeyReply = { options: Record<string, unknown> } | { location: string } | { error: TranslationKey }

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

export function ceremonyFailure(error: unknown, startedAt: number, timeoutMs: number): TranslationKey | null {
  const name = error instanceof DOMException ? error.name : ''
  if (name === 'AbortError') return null
  if (name === 'NotAllowedError') return Date.now() - startedAt >= timeoutMs ? 'passkey.timedOut' : null
  if (name === 'InvalidStateError') return 'passkey.exists'
  return 'passkey.refused'
}
