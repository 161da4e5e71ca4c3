import { getConfig } from '~/.server/config'
import { logger } from '~/.server/ops/logger'

/**
 * An optional call that tells another service about the session. POST with the
 * ID token after sign-in, DELETE without one at logout, at account deletion, and once when a
 * session turns out to have ended elsewhere (./session.ts). A failure is logged and does not block
 * the visitor (ADR 006): the portal's own session is the source of truth.
 */
export async function syncToken(idToken: string | null): Promise<void> {
  const { tokenSyncUrl, tokenSyncTimeoutMs } = getConfig()
  if (!tokenSyncUrl) return
  const method = idToken ? 'POST' : 'DELETE'
  try {
    const response = await fetch(tokenSyncUrl, {
      method,
      headers: idToken ? { Authorization: `Bearer ${idToken}` } : {},
      // Its own, short time-out: every sign-in and logout waits for this call (ADR 029).
      signal: AbortSignal.timeout(tokenSyncTimeoutMs),
      redirect: 'error',
    })
    await response.body?.cancel()
    if (!response.ok) logger.warn({ event: 'token-sync-failed', method, status: response.status }, 'token sync failed')
  } catch (error) {
    logger.warn({ event: 'token-sync-failed', method, error: (error as Error).name }, 'token sync failed')
  }
}
