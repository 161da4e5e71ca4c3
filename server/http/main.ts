import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { ServerBuild } from '@remix-run/node'
import { parseConfig } from '../config'

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
const { createApp } = await import('./app')
const { logger } = await import('../observability/logger')

const buildDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const build = (await import(pathToFileURL(path.join(buildDir, 'server/index.js')).href)) as ServerBuild
const app = createApp({ config, build, clientDir: path.join(buildDir, 'client') })

const server = app.listen(config.port, config.host, () => {
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  logger.info({ host: config.host, port, publicOrigin: config.publicOrigin, platform: config.platform }, 'portal listening')
})

function shutdown(signal: string) {
  logger.info({ signal }, 'shutting down')
  server.close(() => process.exit(0))
  server.closeIdleConnections()
  setTimeout(() => process.exit(0), 10_000).unref()
}
process.once('SIGTERM', () => shutdown('SIGTERM'))
process.once('SIGINT', () => shutdown('SIGINT'))
