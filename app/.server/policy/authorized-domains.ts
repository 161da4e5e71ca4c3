import { getIdentity } from '~/.server/identity'
import { logger } from '~/.server/ops/logger'
import { recordCacheFilled } from '~/.server/ops/metrics'

const REFRESH_MS = 5 * 60 * 1000
const FAILURE_BACKOFF_MS = 30 * 1000

// After a failed read the last list stays and the next read waits 30 s, so
// an identity outage does not cost one call and its time-out per page view.
const cache = {
  hosts: new Set<string>(),
  nextReadAt: 0,
  pending: null as Promise<void> | null,
}

export function knownAuthorizedDomains(): ReadonlySet<string> {
  void getAuthorizedDomains()
  return cache.hosts
}

export async function getAuthorizedDomains(): Promise<ReadonlySet<string>> {
  if (Date.now() >= cache.nextReadAt) {
    cache.pending ??= getIdentity()
      .getProjectConfig()
      .then((config) => {
        cache.hosts = new Set(config.authorizedDomains.map((d) => d.toLowerCase()))
        cache.nextReadAt = Date.now() + REFRESH_MS
        recordCacheFilled('authorized_domains')
      })
      .catch((error: unknown) => {
        cache.nextReadAt = Date.now() + FAILURE_BACKOFF_MS
        logger.warn(
          {
            event: 'authorized-domains-failed',
            code: (error as { code?: string }).code,
            retryInMs: FAILURE_BACKOFF_MS,
          },
          'could not read authorizedDomains',
        )
      })
      .finally(() => {
        cache.pending = null
      })
    await cache.pending
  }
  return cache.hosts
}
