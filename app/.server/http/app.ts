import { randomUUID } from 'node:crypto'
import path from 'node:path'
import type { ServerBuild } from 'react-router'
import express from 'express'
import { ERROR_ROUTE } from '~/lib/error-status'
import type { Config } from '~/.server/config'
import { logger } from '~/.server/ops/logger'
import { recordHttpRequest } from '~/.server/ops/metrics'
import { getReadiness, type Readiness } from '~/.server/http/readiness'
import { formActionSources } from '~/.server/policy/redirect'
import { brandAssets, brandFiles } from '~/.server/brand'
import { setBrand } from '~/lib/brand'
import { bodyLimit, boundedManifestQuery, longPathReplacement, pathWithinBounds } from './request-bounds'
import { pageShells } from './page-shells'
import { plainErrors, precompressed } from './precompressed'
import { createPortalContext, createRouterHandler, renderedUrl, routeLabeler } from './router-handler'
import { errorStatus, plainErrorHandler, securityHeaders, type SecurityHeadersOptions } from './security-headers'

export interface AppOptions {
  config: Config
  build: ServerBuild | (() => Promise<ServerBuild>)
  clientDir?: string
  recaptcha?: SecurityHeadersOptions['recaptcha']
  readiness?: Readiness
}

const REQUEST_ID = /^[\w.:-]{1,128}$/

export function createApp({ config, build, clientDir, recaptcha, readiness = getReadiness() }: AppOptions) {
  const app = express()
  app.disable('x-powered-by')
  // 0 trusts no proxy: X-Forwarded-* from the socket's peer are ignored.
  app.set('trust proxy', config.trustProxy)
  // First, so that every response carries the headers, errors and static files included.
  app.use(
    securityHeaders({
      config,
      recaptcha,
      formTargets: () => formActionSources(config.publicOrigin),
    }),
  )

  app.use((req, res, next) => {
    const forwarded = req.get('x-request-id')
    res.locals.requestId = forwarded && REQUEST_ID.test(forwarded) ? forwarded : randomUUID()
    res.set('X-Request-Id', res.locals.requestId)
    next()
  })

  // The route label is a pattern, never the URL: the query may hold
  // an oobCode, and raw paths would make the metric unbounded.
  const routeOf = routeLabeler(typeof build === 'function' ? null : build.routes)
  app.use((req, res, next) => {
    const started = performance.now()
    // Taken now: an over-long path is rewritten below.
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

  // React Router's lazy route discovery costs the square of the
  // segments, so an over-long path never reaches it (see ADR 016).
  app.use((req, res, next) => {
    const path = pathOf(req.originalUrl)
    if (!path.startsWith('/')) {
      // The absolute or asterisk form: the portal is no proxy, and a
      // page's URL is PUBLIC_URL's origin plus a path (see ADR 026).
      refuse(req, res, 400)
    } else if (!pathWithinBounds(path)) {
      req.url = req.originalUrl = longPathReplacement(path)
    } else if (req.originalUrl.length > TARGET_MAX_LENGTH && path !== '/__manifest') {
      // No page takes a query this long (an emailed link's is under 2 KB).
      refuse(req, res, 414)
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

  // Ready while this process can serve; dependencies are only reported (see ADR 029).
  app.get('/readyz', (_req, res, next) => {
    readiness
      .check()
      .then((report) => {
        res
          .status(report.status === 'ok' ? 200 : 503)
          .set('Cache-Control', 'no-store')
          .json(report)
      })
      .catch(next)
  })

  const brand = brandAssets(config.brand)
  setBrand(brand.page)
  const brandFile = brandFiles(brand)
  app.use((req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? brandFile(req, res, next) : next()))

  if (clientDir) {
    const assets = path.join(clientDir, 'assets')
    app.use(
      '/assets',
      precompressed(assets),
      express.static(assets, { immutable: true, maxAge: '1y', fallthrough: false, setHeaders: markStatic }),
      plainErrors,
    )
    const publicFiles = express.static(clientDir, { maxAge: '1h', index: false, redirect: false, setHeaders: markStatic })
    // Only a path naming a file is looked for on disk: pages never cost a stat.
    app.use((req, res, next) => (path.extname(req.path) ? publicFiles(req, res, next) : next()))
  }

  app.use(bodyLimit())
  app.use((req, res, next) => {
    if (res.locals.bodyTooLarge && (req.method === 'GET' || req.method === 'HEAD')) refuse(req, res, 413)
    next()
  })
  // React Router answers 500 to a POST whose Origin differs from Host. The portal checks the origin
  // itself against PUBLIC_URL (app/.server/policy/csrf.ts), so React Router never sees the header.
  app.use((req, res, next) => {
    res.locals.origin = req.headers.origin ?? null
    delete req.headers.origin
    next()
  })
  // Host and X-Forwarded-Host never choose what is rendered (see ADR 026). Fetch
  // forbids TRACE, TRACK and CONNECT, so React Router cannot be handed them.
  const publicHost = new URL(config.publicOrigin).host
  app.use((req, res, next) => {
    if (!plainHost(req.headers.host) || !plainHost(req.headers['x-forwarded-host'], true)) {
      req.headers.host = publicHost
      delete req.headers['x-forwarded-host']
      refuse(req, res, 400)
    } else if (FETCH_FORBIDDEN_METHODS.has(req.method)) {
      refuse(req, res, 405)
    }
    next()
  })
  const shells = pageShells((req) => renderedUrl(config.publicOrigin, req))
  // A page shell only ever answers a GET: a post goes straight on.
  app.use((req, res, next) => (req.method === 'GET' ? shells(req, res, next) : next()))
  const remix = createRouterHandler({
    build,
    publicOrigin: config.publicOrigin,
    getLoadContext: (req, res) => createPortalContext({
      clientIp: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      userAgent: res.locals.shellHeaders ? '' : (req.get('user-agent') ?? '').slice(0, 512),
      publicOrigin: config.publicOrigin,
      requestId: String(res.locals.requestId),
      cspNonce: String(res.locals.cspNonce),
      requestOrigin: (res.locals.origin as string | null) ?? null,
      bodyTooLarge: res.locals.bodyTooLarge === true,
      errorStatus: typeof res.locals.errorStatus === 'number' ? res.locals.errorStatus : null,
      afterResponse: (work) => void res.once('close', work),
    }),
  })
  // Not app.all('*'): its path matching answers a plain 400 to a path that does not decode (`/%`).
  app.use(remix)
  // The error page when a page was asked for and nothing was sent yet, else a plain status line.
  app.use(((err, req, res, next) => {
    const path = pathOf(req.originalUrl)
    if (res.headersSent || res.locals.errorStatus || path.startsWith('/assets/') || path.endsWith('.data')) return next(err)
    logger.error({ err, reqId: res.locals.requestId }, 'request failed outside React Router; rendering its error page')
    refuse(req, res, errorStatus(err))
    remix(req, res, (again?: unknown) => next(again ?? err))
  }) satisfies express.ErrorRequestHandler)
  app.use(plainErrorHandler)
  return app
}

export const TARGET_MAX_LENGTH = 8 * 1024

const FETCH_FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK'])

/** Anchored and unambiguous: linear on any input. */
const PLAIN_HOST = /^(?:[A-Za-z0-9._-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$/

function plainHost(value: string | string[] | undefined, list = false): boolean {
  if (value === undefined) return true
  if (typeof value !== 'string') return false
  return (list ? value.split(',').map((host) => host.trim()) : [value]).every((host) => PLAIN_HOST.test(host))
}

/** The not-found route renders that status's translated error page (app/routes/$.tsx). The body is never read. */
function refuse(req: express.Request, res: express.Response, status: number) {
  res.locals.errorStatus = status
  const data = pathOf(req.originalUrl).endsWith('.data') ? '.data' : ''
  req.url = req.originalUrl = `${ERROR_ROUTE}${data}`
  if (req.method !== 'HEAD') req.method = 'GET'
}

/** No regex: the input is the client's. */
function pathOf(url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

function markStatic(res: express.Response) {
  res.locals.route = 'static'
}
