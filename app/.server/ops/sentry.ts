import type * as SentryCore from '@sentry/core'
import type { ServerRuntimeClientOptions } from '@sentry/core'
import { version } from '../../../package.json'
import { scrub } from '~/lib/scrub'
import { getConfig, type Config } from '~/.server/config'

// No @sentry/node: its OpenTelemetry tracing weighs 100 MB of the install and
// duplicates our metrics (see ADR 032). Everything sent goes through scrub() first.
export function sentryEnabled({ sentryDsn, platform }: Pick<Config, 'sentryDsn' | 'platform'> = getConfig()): boolean {
  return Boolean(sentryDsn) && platform !== 'local'
}

type Sentry = typeof SentryCore
let sentry: Promise<Sentry | null> | undefined

// Loaded only when reporting is on: a pod without SENTRY_DSN does not hold the SDK's code (ADR 064).
export const initSentry = (): Promise<Sentry | null> =>
  (sentry ??= sentryEnabled() ? import('@sentry/core').then(start) : Promise.resolve(null))

function start(core: Sentry): Sentry {
  const { sentryDsn, platform } = getConfig()
  core.initAndBind<InstanceType<Sentry['ServerRuntimeClient']>, ServerRuntimeClientOptions>(core.ServerRuntimeClient, {
    dsn: sentryDsn!,
    environment: platform,
    release: `auth-portal@${version}`,
    platform: 'node',
    runtime: { name: 'node', version: process.version },
    serverName: 'auth-portal',
    sendDefaultPii: false,
    stackParser: core.createStackParser(core.nodeStackLineParser()),
    integrations: [
      core.inboundFiltersIntegration(),
      core.functionToStringIntegration(),
      core.linkedErrorsIntegration(),
      core.dedupeIntegration(),
    ],
    transport: (options) =>
      core.createTransport(options, async ({ body }) => {
        const response = await fetch(options.url, { method: 'POST', body: body as BodyInit, signal: AbortSignal.timeout(5_000) })
        return { statusCode: response.status, headers: { 'retry-after': response.headers.get('retry-after'), 'x-sentry-rate-limits': response.headers.get('x-sentry-rate-limits') } }
      }),
    beforeSend: (event) => scrub(event),
    beforeSendTransaction: (event) => scrub(event),
    beforeBreadcrumb: (breadcrumb) => scrub(breadcrumb),
  })
  return core
}

export type BrowserSentryConfig = NonNullable<ReturnType<typeof browserSentryConfig>>

export function browserSentryConfig() {
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
  void initSentry().then((core) => core?.captureException(error))
}

export async function flushReports(timeoutMs = 2_000): Promise<void> {
  await (await sentry)?.getClient()?.flush(timeoutMs)
}
