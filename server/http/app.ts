import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { createRequestHandler } from '@remix-run/express'
import type { ServerBuild } from '@remix-run/node'
import express from 'express'
import type { Config } from '../config'
import type { PortalContext } from '../context'
import { bodyLimit } from './body-limit'
import { plainErrorHandler, securityHeaders, type SecurityHeadersOptions } from './security-headers'

export interface AppOptions {
  config: Config
  /** The Remix server build, or a loader of it (the Vite dev server reloads it on change). */
  build: ServerBuild | (() => Promise<ServerBuild>)
  /** build/client, the browser assets; absent in development where Vite serves them. */
  clientDir?: string
  /** Vite's connect middlewares in development. */
  devMiddleware?: express.RequestHandler
  /** Allow reCAPTCHA's script and frame in the CSP (always, or asked per request). */
  recaptcha?: SecurityHeadersOptions['recaptcha']
}

const REQUEST_ID = /^[\w.:-]{1,128}$/

/** The production HTTP server around the Remix build (ADR 002). */
export function createApp({ config, build, clientDir, devMiddleware, recaptcha }: AppOptions) {
  const app = express()
  app.disable('x-powered-by')
  // A number of hops: 0 trusts no proxy, so X-Forwarded-* from the socket's peer are ignored.
  app.set('trust proxy', config.trustProxy)
  // First, so that every response carries the headers: pages, errors, static files, /healthz.
  app.use(securityHeaders({ config, recaptcha, development: Boolean(devMiddleware) }))

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

  app.use(bodyLimit())
  // Remix answers 500 to any POST whose Origin differs from Host. The portal decides that itself
  // (server/csrf.ts, against PUBLIC_URL, with a translated 403), so Remix never sees the header.
  app.use((req, res, next) => {
    res.locals.origin = req.headers.origin ?? null
    delete req.headers.origin
    next()
  })
  app.all(
    '*',
    createRequestHandler({
      build,
      mode: devMiddleware ? 'development' : 'production',
      getLoadContext: (req, res) => ({
        clientIp: req.ip ?? req.socket.remoteAddress ?? 'unknown',
        publicOrigin: config.publicOrigin,
        requestId: String(res.locals.requestId),
        cspNonce: String(res.locals.cspNonce),
        requestOrigin: (res.locals.origin as string | null) ?? null,
      }) satisfies PortalContext,
    }),
  )
  app.use(plainErrorHandler)
  return app
}
