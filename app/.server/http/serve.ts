import { createServer } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ServerBuild } from 'react-router'
import { getConfig } from '~/.server/config'
import { getIdentity } from '~/.server/identity'
import { logger } from '~/.server/ops/logger'
import { createMetricsServer } from '~/.server/http/metrics-server'
import { getReadiness } from '~/.server/http/readiness'
import { getAuthorizedDomains } from '~/.server/policy/redirect'
import { closeRateLimits, getRateLimits } from '~/.server/policy/rate-limit'
import { closeSessionStore, getSessionStore } from '~/.server/auth/session-store'
import { recaptchaEnforced, startRecaptchaRefresh, stopRecaptchaRefresh } from '~/.server/identity/recaptcha'
import { createApp } from './app'

// Called by server/main.ts with the build this module is part
// of, so every piece of process state exists once (see ADR 023).
export async function serve(build: ServerBuild, { clientDir }: { clientDir: string }): Promise<void> {
  const config = getConfig()
  // Connect now, so /readyz can tell at once.
  getRateLimits()
  // A store path that cannot be written fails the start, not a sign-in.
  getSessionStore()
  // The CSP depends on reCAPTCHA enforcement and authorizedDomains:
  // wait for them at most 2 s, then refresh in the background.
  await Promise.race([Promise.all([startRecaptchaRefresh(() => getIdentity().getRecaptchaConfig()), getAuthorizedDomains()]), sleep(2_000)])

  const readiness = getReadiness()
  let shuttingDown = false
  const app = createApp({
    config,
    build,
    clientDir,
    recaptcha: () => (recaptchaEnforced() ? config.recaptchaScriptUrl : null),
    readiness,
  })
  const server = createServer((req, res) => {
    if (shuttingDown) res.setHeader('Connection', 'close')
    app(req, res)
  })
  server.listen(config.port, config.host, () => {
    const address = server.address()
    const port = typeof address === 'object' && address ? address.port : config.port
    logger.info(
      { host: config.host, port, publicOrigin: config.publicOrigin, platform: config.platform },
      'portal listening',
    )
    readiness.markStarted()
  })

  // /metrics is never served on the public port.
  const metricsServer = config.metricsPort === null ? null : createMetricsServer()
  metricsServer?.listen(config.metricsPort ?? 0, config.host, () => {
    const address = metricsServer.address()
    logger.info({ port: typeof address === 'object' && address ? address.port : config.metricsPort }, 'metrics listening')
  })

  // On SIGTERM the portal keeps serving for SHUTDOWN_DELAY_MS, because Kubernetes
  // removes endpoints asynchronously and requests keep arriving. SIGINT skips the delay.
  async function shutdown(signal: string) {
    // A repeated signal (Ctrl-C reaches `npm start` and the portal both) changes nothing.
    if (shuttingDown) return logger.debug({ signal }, 'already shutting down')
    shuttingDown = true
    readiness.startShutdown()
    const started = Date.now()
    const delayMs = signal === 'SIGTERM' ? config.shutdownDelayMs : 0
    logger.info({ signal, delayMs, timeoutMs: config.shutdownTimeoutMs }, 'shutting down')
    stopRecaptchaRefresh()
    if (delayMs > 0) await sleep(delayMs)

    const drained = new Promise<void>((resolve) => server.close(() => resolve()))
    server.closeIdleConnections()
    // A keep-alive connection whose last request just ended closes at once, not after its idle time-out.
    const closeIdle = setInterval(() => server.closeIdleConnections(), 100)
    if ((await Promise.race([drained, sleep(config.shutdownTimeoutMs, 'timeout')])) === 'timeout') {
      logger.warn(
        { timeoutMs: config.shutdownTimeoutMs },
        'requests still in flight at the shutdown time-out: closing their connections',
      )
      server.closeAllConnections()
    }
    clearInterval(closeIdle)

    await Promise.race([
      Promise.allSettled([
        getIdentity().close(),
        closeRateLimits(),
        closeSessionStore(),
        new Promise<void>((resolve) => {
          if (!metricsServer) return resolve()
          metricsServer.close(() => resolve())
          metricsServer.closeAllConnections()
        }),
      ]),
      sleep(2_000),
    ])
    logger.info({ ms: Date.now() - started }, 'shut down')
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}
