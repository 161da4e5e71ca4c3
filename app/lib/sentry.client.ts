import { addIntegration, captureException, init } from '@sentry/react-router'
import type { BrowserSentryConfig } from '~/.server/ops/sentry'
import { scrub } from './scrub'

export function initBrowserSentry(settings: HTMLMetaElement, earlier: Event[], keep: (event: Event) => void) {
  removeEventListener('error', keep)
  removeEventListener('unhandledrejection', keep)
  const { dsn, environment, replaySessionSampleRate, replayOnErrorSampleRate } = JSON.parse(
    settings.content,
  ) as BrowserSentryConfig
  init({
    dsn,
    environment,
    tracesSampleRate: 1,
    replaysSessionSampleRate: replaySessionSampleRate,
    replaysOnErrorSampleRate: replayOnErrorSampleRate,
    beforeSend: (event) => scrub(event),
    beforeSendTransaction: (event) => scrub(event),
    beforeBreadcrumb: (breadcrumb) => scrub(breadcrumb),
  })
  for (const event of earlier)
    captureException(event instanceof PromiseRejectionEvent ? event.reason : (event as ErrorEvent).error)
  if (replaySessionSampleRate > 0 || replayOnErrorSampleRate > 0) {
    void import('./sentry-replay.client').then(({ replay }) => addIntegration(replay()))
  }
}
