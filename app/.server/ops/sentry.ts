import {
  ServerRuntimeClient,
  type ServerRuntimeClientOptions,
  captureException,
  createStackParser,
  createTransport,
  dedupeIntegration,
  functionToStringIntegration,
  getClient,
  inboundFiltersIntegration,
  initAndBind,
  linkedErrorsIntegration,
  nodeStackLineParser,
} from '@sentry/core'
import { version } from '../../../package.json'
import { scrub } from '~/lib/scrub'
import { getConfig, type Config } from '~/.server/config'

// No @sentry/node: its OpenTelemetry tracing weighs 100 MB of the install and
// duplicates our metrics (see ADR 032). Everything sent goes through scrub() first.
export function sentryEnabled({ sentryDsn, platform }: Pick<Config, 'sentryDsn' | 'platform'> = getConfig()): boolean {
  return Boolean(sentryDsn) && platform !== 'local'
}

let sentryStarted: boolean | undefined

export const initSentry = () =>
  (sentryStarted ??= (() => {
    if (!sentryEnabled()) return false
    const { sentryDsn, platform } = getConfig()
    initAndBind<ServerRuntimeClient, ServerRuntimeClientOptions>(ServerRuntimeClient, {
      dsn: sentryDsn!,
      environment: platform,
      release: `auth-portal@${version}`,
      platform: 'node',
      runtime: { name: 'node', version: process.version },
      serverName: 'auth-portal',
      sendDefaultPii: false,
      stackParser: createStackParser(nodeStackLineParser()),
      integrations: [inboundFiltersIntegration(), functionToStringIntegration(), linkedErrorsIntegration(), dedupeIntegration()],
      transport: (options) =>
        createTransport(options, async ({ body }) => {
          const response = await fetch(options.url, { method: 'POST', body: body as BodyInit, signal: AbortSignal.timeout(5_000) })
          return { statusCode: response.status, headers: { 'retry-after': response.headers.get('retry-after'), 'x-sentry-rate-limits': response.headers.get('x-sentry-rate-limits') } }
        }),
      beforeSend: (event) => scrub(event),
      beforeSendTransaction: (event) => scrub(event),
      beforeBreadcrumb: (breadcrumb) => scrub(breadcrumb),
    })
    return true
  })())

export interface BrowserSentryConfig {
  dsn: string
  environment: string
  replaySessionSampleRate: number
  replayOnErrorSampleRate: number
}

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
  if (initSentry()) captureException(error)
}

export async function flushReports(timeoutMs = 2_000): Promise<void> {
  await getClient()?.flush(timeoutMs)
}
