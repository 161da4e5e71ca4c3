import { getConfig } from '~/.server/config'
import { logger } from '~/.server/ops/logger'

/** A failure is logged and never blocks the visitor: the portal's own session is the source of truth (see ADR 006). */
export async function syncToken(idToken: string | null): Promise<void> {
  const { tokenSyncUrl, tokenSyncTimeoutMs } = getConfig()
  if (!tokenSyncUrl) return
  const method = idToken ? 'POST' : 'DELETE'
  try {
    const response = await fetch(tokenSyncUrl, {
      method,
      headers: idToken ? { Authorization: `Bearer ${idToken}` } : {},
      // Its own short time-out: every sign-in and logout waits for this call.
      signal: AbortSignal.timeout(tokenSyncTimeoutMs),
      redirect: 'error',
    })
    await response.body?.cancel()
    if (!response.ok) logger.warn({ event: 'token-sync-failed', method, status: response.status }, 'token sync failed')
  } catch (error) {
    logger.warn({ event: 'token-sync-failed', method, error: (error as Error).name }, 'token sync failed')
  }
}
