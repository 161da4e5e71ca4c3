import { createServer } from 'node:http'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { ServerBuild } from '@remix-run/node'
import { parseConfig } from '../app/.server/config'

/**
 * `npm run serve`: the production entry point. Configuration comes from the environment alone;
 * a bad one stops here with one line per problem and exit code 1.
 */
const result = parseConfig(process.env)
if (!result.ok) {
  for (const problem of result.errors) console.error(`Invalid configuration: ${problem}`)
  process.exit(1)
}
const config = result.config

// Loaded only once the configuration is known to be valid (they read it at import).
const { createApp } = await import('../app/.server/http/app')
const { logger } = await import('../app/.server/ops/logger')
const { createMetricsServer } = await import('../app/.server/ops/metrics')
const { getReadiness, operationsIdentity } = await import('../app/.server/ops/readiness')
const { recaptchaEnforced, startRecaptchaRefresh, stopRecaptchaRefresh } = await import('../app/.server/policy/recaptcha')
const { getIdentity } = await import('../app/.server/identity')
const { closeRateLimits, getRateLimits } = await import('../app/.server/policy/rate-limit')

const buildDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const build = (await import(pathToFileURL(path.join(buildDir, 'server/index.js')).href)) as ServerBuild

// Connect to Redis now rather than on the first sign-in, so /readyz can tell at once.
getRateLimits()
// The CSP admits RECAPTCHA_SCRIPT_URL while the project has reCAPTCHA in AUDIT or ENFORCE: asked now
// (waited for at most 2 s), then every 5 minutes in the background; requests read the last answer.
await Promise.race([startRecaptchaRefresh(), sleep(2_000)])
// The authorizedDomains that pages' CSP form-action lists: read now, like reCAPTCHA's answer.
const { getAuthorizedDomains } = await import('../app/.server/policy/authorized-domains')
await Promise.race([getAuthorizedDomains(), sleep(2_000)])

const readiness = getReadiness()
let shuttingDown = false
const app = createApp({
  config,
  build,
  clientDir: path.join(buildDir, 'client'),
  recaptcha: () => (recaptchaEnforced() ? config.recaptchaScriptUrl : null),
  readiness,
})
const server = createServer((req, res) => {
  // Once shutdown has started, every response asks its client (the proxy) to close the connection.
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
})

// Prometheus scrapes its own port; /metrics is never served on the public one.
const metricsServer = config.metricsPort === null ? null : createMetricsServer()
metricsServer?.listen(config.metricsPort ?? 0, config.host, () => {
  const address = metricsServer.address()
  logger.info({ port: typeof address === 'object' && address ? address.port : config.metricsPort }, 'metrics listening')
})

/**
 * SIGTERM/SIGINT: /readyz answers 503 at once, the listening socket closes (the proxy retries
 * elsewhere), requests in flight finish (up to SHUTDOWN_TIMEOUT_MS) on connections that then close,
 * idle keep-alive connections close now; then the identity pools and Redis close and the process
 * exits 0 (also after the time-out, once the connections still open have been cut).
 */
async function shutdown(signal: string) {
  // A repeated signal (Ctrl-C reaches `npm start` and the portal both) changes nothing: the time-out bounds it.
  if (shuttingDown) return logger.debug({ signal }, 'already shutting down')
  shuttingDown = true
  readiness.startShutdown()
  const started = Date.now()
  logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutting down')
  stopRecaptchaRefresh()

  const drained = new Promise<void>((resolve) => server.close(() => resolve()))
  server.closeIdleConnections()
  // A keep-alive connection whose last request just ended is closed at once, not after its idle time-out.
  const closeIdle = setInterval(() => server.closeIdleConnections(), 100)
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), config.shutdownTimeoutMs)
  })
  if ((await Promise.race([drained, timedOut])) === 'timeout') {
    logger.warn(
      { timeoutMs: config.shutdownTimeoutMs },
      'requests still in flight at the shutdown time-out: closing their connections',
    )
    server.closeAllConnections()
  }
  clearInterval(closeIdle)
  clearTimeout(timer)

  // Nothing runs after this: getIdentity() here creates nothing that matters if no request ever did.
  await Promise.race([
    Promise.allSettled([
      getIdentity().close(),
      operationsIdentity().close(),
      closeRateLimits(),
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
