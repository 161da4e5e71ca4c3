import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { createRequestHandler } from '@remix-run/express'
import type { ServerBuild } from '@remix-run/node'
import express from 'express'
import type { Config } from '../config'
import type { PortalContext } from '../context'

export interface AppOptions {
  config: Config
  /** The Remix server build, or a loader of it (the Vite dev server reloads it on change). */
  build: ServerBuild | (() => Promise<ServerBuild>)
  /** build/client, the browser assets; absent in development where Vite serves them. */
  clientDir?: string
  /** Vite's connect middlewares in development. */
  devMiddleware?: express.RequestHandler
}

const REQUEST_ID = /^[\w.:-]{1,128}$/

/** The production HTTP server around the Remix build (ADR 002). */
export function createApp({ config, build, clientDir, devMiddleware }: AppOptions) {
  const app = express()
  app.disable('x-powered-by')
  // A number of hops: 0 trusts no proxy, so X-Forwarded-* from the socket's peer are ignored.
  app.set('trust proxy', config.trustProxy)

  app.use((req, res, next) => {
    const forwarded = req.get('x-request-id')
    res.locals.requestId = forwarded && REQUEST_ID.test(forwarded) ? forwarded : randomUUID()
    res.set('X-Request-Id', res.locals.requestId)
    next()
  })

  app.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').type('text/plain').send('ok')
  })

  if (devMiddleware) app.use(devMiddleware)
  if (clientDir) {
    app.use(
      '/assets',
      express.static(path.join(clientDir, 'assets'), { immutable: true, maxAge: '1y', fallthrough: false }),
    )
    app.use(express.static(clientDir, { maxAge: '1h', index: false, redirect: false }))
  }

  app.all(
    '*',
    createRequestHandler({
      build,
      mode: devMiddleware ? 'development' : 'production',
      getLoadContext: (req, res) => ({
        clientIp: req.ip ?? req.socket.remoteAddress ?? 'unknown',
        publicOrigin: config.publicOrigin,
        requestId: String(res.locals.requestId),
      }) satisfies PortalContext,
    }),
  )
  return app
}
