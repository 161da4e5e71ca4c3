import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { createRequestHandler } from '@remix-run/express'
import type { ServerBuild } from '@remix-run/node'
import express from 'express'
import type { Config } from '../config'
import type { PortalContext } from '../context'
import { logger } from '../observability/logger'
import { recordHttpRequest, routeLabeler } from '../observability/metrics'
import { getReadiness, type Readiness } from '../readiness'
import { formActionSources } from '../redirect'
import { bodyLimit } from './body-limit'
import { boundedManifestQuery, longPathReplacement, pathWithinBounds } from './path-bound'
import { plainErrorHandler, securityHeaders, type SecurityHeadersOptions } from './security-headers'

export interface AppOptions {
  config: Config
  /** The Remix server build, or a loader of it (the Vite dev server reloads it on change). */
  build: ServerBuild | (() => Promise<ServerBuild>)
  /** build/client, the browser assets; absent in development where Vite serves them. */
  clientDir?: string
  /** Vite's connect middlewares in development. */
  devMiddleware?: express.RequestHandler
  /** RECAPTCHA_SCRIPT_URL while the CSP admits reCAPTCHA (always, or asked per request). */
  recaptcha?: SecurityHeadersOptions['recaptcha']
  /** What /readyz reports; default: the process's (identity service, Redis, shutdown). */
  readiness?: Readiness
}

const REQUEST_ID = /^[\w.:-]{1,128}$/

/** The production HTTP server around the Remix build (ADR 002). */
export function createApp({ config, build, clientDir, devMiddleware, recaptcha, readiness }: AppOptions) {
  const app = express()
  app.disable('x-powered-by')
  // A number of hops: 0 trusts no proxy, so X-Forwarded-* from the socket's peer are ignored.
  app.set('trust proxy', config.trustProxy)
  // First, so that every response carries the headers: pages, errors, static files, /healthz.
  app.use(
    securityHeaders({
      config,
      recaptcha,
      development: Boolean(devMiddleware),
      formTargets: () => formActionSources(config.publicOrigin),
    }),
  )

  app.use((req, res, next) => {
    const forwarded = req.get('x-request-id')
    res.locals.requestId = forwarded && REQUEST_ID.test(forwarded) ? forwarded : randomUUID()
    res.set('X-Request-Id', res.locals.requestId)
    next()
  })

  // One access-log line and one histogram observation per request. The route is a pattern, never the
  // URL: the query string may hold an oobCode, and raw paths would make the metric unbounded.
  const routeOf = routeLabeler(typeof build === 'function' ? null : build.routes)
  const ready = readiness ?? getReadiness()
  app.use((req, res, next) => {
    const started = performance.now()
    // Taken now: an over-long path is rewritten below. routeOf is bounded (and regex-free) on long input.
    const path = pathOf(req.originalUrl)
    res.once('close', () => {
      const ms = performance.now() - started
      const route = res.locals.route === 'static' || path.startsWith('/assets/') ? 'static' : routeOf(path)
      // 499: the client went away before the response was complete (nginx's convention).
      const status = res.writableFinished ? res.statusCode : 499
      recordHttpRequest(route, req.method, status, ms / 1000)
      const probe = (route === '/healthz' || route === '/readyz') && status < 400
      logger[probe ? 'debug' : 'info'](
        { reqId: res.locals.requestId, method: req.method, route, status, ms: Math.round(ms * 10) / 10 },
        'request',
      )
    })
    next()
  })

  // A path over the bounds (ADR 016) is answered as the not-found page it is, without Remix ever
  // matching it (its lazy route discovery costs the square of the segments): Remix gets a short
  // reserved path instead. /__manifest, the discovery endpoint, may ask about a bounded set of paths.
  app.use((req, res, next) => {
    const path = pathOf(req.originalUrl)
    if (!pathWithinBounds(path)) {
      req.url = req.originalUrl = longPathReplacement(path)
    } else if (path === '/__manifest') {
      const query = boundedManifestQuery(req.originalUrl.slice(path.length + 1))
      if (query === null) {
        res.status(400).type('text/plain').send('Bad Request')
        return
      }
      req.url = req.originalUrl = `${path}?${query}`
    }
    next()
  })

  app.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').type('text/plain').send('ok')
  })

  // Ready for traffic: the identity service and Redis answer, and no shutdown has started (server/readiness.ts).
  app.get('/readyz', (_req, res, next) => {
    ready
      .check()
      .then((report) => {
        res
          .status(report.status === 'ok' ? 200 : 503)
          .set('Cache-Control', 'no-store')
          .json(report)
      })
      .catch(next)
  })

  if (devMiddleware) app.use(devMiddleware)
  if (clientDir) {
    app.use(
      '/assets',
      express.static(path.join(clientDir, 'assets'), {
        immutable: true,
        maxAge: '1y',
        fallthrough: false,
        setHeaders: markStatic,
      }),
    )
    const publicFiles = express.static(clientDir, { maxAge: '1h', index: false, redirect: false, setHeaders: markStatic })
    // Only a path naming a file is looked for on disk: pages (no extension) never cost a stat.
    app.use((req, res, next) => (path.extname(req.path) ? publicFiles(req, res, next) : next()))
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

/** The path of a request target, without its query string (no regex: the input is the client's). */
function pathOf(url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

/** The route label of the files express.static serves. */
function markStatic(res: express.Response) {
  res.locals.route = 'static'
}
