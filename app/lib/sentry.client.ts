import { addIntegration, init } from '@sentry/remix'
import { scrub } from './scrub'

export interface BrowserSentryOptions {
  dsn: string
  environment: string
  replaySessionSampleRate: number
  replayOnErrorSampleRate: number
}

/**
 * The browser reporter, loaded (as its own chunk) only when the server says reporting is on.
 * Session Replay comes later, as a chunk of its own, once the page is loaded and the browser idle,
 * so that it never weighs on a first visit (ADR 030); an error before then has no replay.
 */
export function initBrowserSentry({
  dsn,
  environment,
  replaySessionSampleRate,
  replayOnErrorSampleRate,
}: BrowserSentryOptions) {
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
  if (replaySessionSampleRate > 0 || replayOnErrorSampleRate > 0) {
    afterLoadWhenIdle(() => void import('./sentry-replay.client').then(({ replay }) => addIntegration(replay())))
  }
}

function afterLoadWhenIdle(run: () => void) {
  const idle = () =>
    window.requestIdleCallback ? window.requestIdleCallback(run, { timeout: 5_000 }) : setTimeout(run, 1_000)
  if (document.readyState === 'complete') idle()
  else window.addEventListener('load', idle, { once: true })
}
