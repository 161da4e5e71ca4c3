import * as Sentry from '@sentry/remix'
import { scrub } from './scrub'

/**
 * The browser reporter, loaded (as its own chunk) only when the server says reporting is on.
 * Replays keep text and inputs (seed section 9) except password fields, which stay masked.
 */
export function initBrowserSentry({
  dsn,
  environment,
  replaySessionSampleRate,
  replayOnErrorSampleRate,
}: {
  dsn: string
  environment: string
  replaySessionSampleRate: number
  replayOnErrorSampleRate: number
}) {
  Sentry.init({
    dsn,
    environment,
    tracesSampleRate: 1,
    replaysSessionSampleRate: replaySessionSampleRate,
    replaysOnErrorSampleRate: replayOnErrorSampleRate,
    integrations: [
      Sentry.replayIntegration({
        maskAllText: false,
        maskAllInputs: false,
        mask: ['input[type="password"]'],
        block: ['input[type="password"]'],
        mutationLimit: 10_000,
        mutationBreadcrumbLimit: 750,
        slowClickTimeout: 7_000,
      }),
    ],
    beforeSend: (event) => scrub(event),
    beforeSendTransaction: (event) => scrub(event),
    beforeBreadcrumb: (breadcrumb) => scrub(breadcrumb),
  })
}
