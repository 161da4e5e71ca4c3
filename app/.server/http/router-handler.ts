import { createReadableStreamFromReadable, writeReadableStreamToWritable } from '@react-router/node'
import { createRequestHandler, RouterContextProvider, type ServerBuild } from 'react-router'
import type express from 'express'
import type { PortalContext } from '~/.server/context'
import { pathWithinBounds } from './request-bounds'

// Unlike @react-router/express, the URL is never rebuilt from Host or X-Forwarded-*, which
// any client sets: it is always PUBLIC_URL's origin plus the request target (see ADR 026).

/** Concatenated, never resolved, so that `//host/x` stays a path. */
export function renderedUrl(publicOrigin: string, req: express.Request): string {
  return new URL(publicOrigin + req.originalUrl).href
}

export function createPortalContext(values: PortalContext): RouterContextProvider {
  return Object.defineProperties(new RouterContextProvider(), Object.getOwnPropertyDescriptors(values))
}

export function createRouterHandler(options: {
  build: ServerBuild | (() => Promise<ServerBuild>)
  publicOrigin: string
  getLoadContext: (req: express.Request, res: express.Response) => RouterContextProvider
}): express.RequestHandler {
  const handle = createRequestHandler(options.build, 'production')
  return (req, res, next) => {
    const url = renderedUrl(options.publicOrigin, req)
    // For page shells to compare with their key.
    res.locals.renderedUrl = url
    const controller = new AbortController()
    // Loaders and actions are aborted when the response can no longer be written.
    let finished = false
    res.once('finish', () => (finished = true))
    res.once('close', () => finished || controller.abort())
    const headers = new Headers()
    // A page-shell miss is rendered from the shell key's headers alone (page-shells.ts).
    const sent: express.Request['headers'] = res.locals.shellHeaders ?? req.headers
    for (const [name, value] of Object.entries(sent)) {
      if (Array.isArray(value)) for (const one of value) headers.append(name, one)
      else if (value) headers.set(name, value)
    }
    // A body bodyLimit read itself (request-bounds.ts) is handed on; else the request's own stream.
    const read: Buffer<ArrayBuffer> | undefined = res.locals.body
    const body = req.method === 'GET' || req.method === 'HEAD' ? null : (read ?? createReadableStreamFromReadable(req))
    const init = { method: req.method, headers, signal: controller.signal, body, duplex: 'half' as const }
    const request = new Request(url, init)
    handle(request, options.getLoadContext(req, res))
      .then(async (response) => {
        if (res.destroyed || res.writableEnded) return void (await response.body?.cancel())
        res.statusMessage = response.statusText
        res.status(response.status)
        for (const [name, value] of response.headers.entries()) res.append(name, value)
        if (response.body) await writeReadableStreamToWritable(response.body, res)
        else res.end()
      })
      .catch(next)
  }
}

const SERVER_ROUTES = ['/healthz', '/readyz', '/__manifest']

type RouteManifest = Record<string, { parentId?: string; path?: string; index?: boolean } | undefined>

/** The label set is bounded by the build, never by what clients send. */
export function routeLabeler(routes: RouteManifest | null): (path: string) => string {
  const patterns = new Set(SERVER_ROUTES)
  const fullPath = (id: string | undefined, depth = 0): string => {
    const route = id ? routes?.[id] : undefined
    if (!route || depth > 32) return ''
    const parent = fullPath(route.parentId, depth + 1)
    return route.path ? `${parent.replace(/\/$/, '')}/${route.path.replace(/^\//, '')}` : parent
  }
  for (const id of Object.keys(routes ?? {})) {
    const pattern = fullPath(id) || '/'
    // A splat would label every unknown URL with its pattern.
    if (!pattern.includes('*') && !pattern.includes('?')) patterns.add(pattern.replace(/(.)\/$/, '$1'))
  }
  const dynamic = [...patterns].filter((p) => p.includes('/:')).map((p) => p.split('/'))
  // A `:param` segment stands for any one non-empty segment.
  const matches = (pattern: string[], segments: string[]) =>
    pattern.length === segments.length &&
    pattern.every((s, i) => (s.startsWith(':') ? segments[i] !== '' : s === segments[i]))

  // Every request's path comes here: no regex may backtrack on it (`/\/+$/` on '/' + 8,000 slashes + 'x' took 130 ms).
  return (rawPath) => {
    if (!pathWithinBounds(rawPath)) return 'other'
    // React Router asks for the data of `/x` at `/x.data`, of `/` and `/x/` at `/_.data` and `/x/_.data`.
    const page = rawPath.endsWith('/_.data') ? rawPath.slice(0, -'_.data'.length) : withoutSuffix(rawPath, '.data')
    const path = trimTrailingSlashes(page)
    if (patterns.has(path)) return path
    const segments = path.split('/')
    return dynamic.find((pattern) => matches(pattern, segments))?.join('/') ?? 'other'
  }
}

function withoutSuffix(value: string, suffix: string): string {
  return value.endsWith(suffix) ? value.slice(0, -suffix.length) : value
}

/** A loop: `/\/+$/` backtracks quadratically on '///…///x'. */
export function trimTrailingSlashes(path: string): string {
  let end = path.length
  while (end > 1 && path.charCodeAt(end - 1) === 47) end--
  return end === path.length ? path : path.slice(0, end)
}
