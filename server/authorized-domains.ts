import { getIdentity } from './identity'
import { logger } from './observability/logger'
import { singleton } from './singleton'

const REFRESH_MS = 5 * 60 * 1000

/**
 * The identity project's authorizedDomains, where redirects after sign-in may go. Read through
 * the client and cached for five minutes; when a refresh fails the last known list stays.
 */
const cache = singleton('authorized-domains', () => ({ hosts: new Set<string>(), fetchedAt: 0, pending: null as Promise<void> | null }))

/** What is known now, without waiting (a stale list is refreshed in the background). */
export function knownAuthorizedDomains(): ReadonlySet<string> {
  void getAuthorizedDomains()
  return cache.hosts
}

export async function getAuthorizedDomains(): Promise<ReadonlySet<string>> {
  if (Date.now() - cache.fetchedAt > REFRESH_MS) {
    cache.pending ??= getIdentity()
      .getProjectConfig()
      .then((config) => {
        cache.hosts = new Set(config.authorizedDomains.map((d) => d.toLowerCase()))
        cache.fetchedAt = Date.now()
      })
      .catch((error: unknown) => {
        logger.warn({ event: 'authorized-domains-failed', code: (error as { code?: string }).code }, 'could not read authorizedDomains')
      })
      .finally(() => {
        cache.pending = null
      })
    await cache.pending
  }
  return cache.hosts
}
