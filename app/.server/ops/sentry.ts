import * as Sentry from '@sentry/react-router'
import { scrub } from '~/lib/scrub'
import { getConfig, type Config } from '~/.server/config'

/**
 * Error reporting (seed sections 4, 9): on when SENTRY_DSN is set and PLATFORM is not local.
 * Everything sent goes through scrub() first, so no secret leaves the process.
 */
export function sentryEnabled({ sentryDsn, platform }: Pick<Config, 'sentryDsn' | 'platform'> = getConfig()): boolean {
  return Boolean(sentryDsn) && platform !== 'local'
}

let sentryStarted: boolean | undefined

/** Starts the reporter once (when enabled); says whether it runs. */
export const initSentry = () =>
  (sentryStarted ??= (() => {
    if (!sentryEnabled()) return false
    const { sentryDsn, platform } = getConfig()
    Sentry.init({
      dsn: sentryDsn!,
      environment: platform,
      tracesSampleRate: 1,
      sendDefaultPii: false,
      beforeSend: (event) => scrub(event),
      beforeSendTransaction: (event) => scrub(event),
      beforeBreadcrumb: (breadcrumb) => scrub(breadcrumb),
    })
    return true
  })())

/** What the browser needs to start its own reporter (ADR 030). */
export interface BrowserSentryConfig {
  dsn: string
  environment: string
  replaySessionSampleRate: number
  replayOnErrorSampleRate: number
}

/** For the browser: its reporter's settings, or null when reporting is off. */
export function browserSentryConfig(): BrowserSentryConfig | null {
  const { sentryDsn, platform, replaySampleRates } = getConfig()
  if (!sentryEnabled()) return null
  return {
    dsn: sentryDsn!,
    environment: platform,
    replaySessionSampleRate: replaySampleRates.session,
    replayOnErrorSampleRate: replaySampleRates.onError,
  }
}

export function reportError(error: unknown): void {
  if (initSentry()) Sentry.captureException(error)
}

export async function flushReports(timeoutMs = 2_000): Promise<void> {
  if (initSentry()) await Sentry.flush(timeoutMs)
}
