import { createReadableStreamFromReadable, writeReadableStreamToWritable } from '@react-router/node'
import { createRequestHandler, type RouterContextProvider, type ServerBuild } from 'react-router'
import type express from 'express'

// Unlike @react-router/express, the URL is never rebuilt from Host or X-Forwarded-*, which
// any client sets: it is always PUBLIC_URL's origin plus the request target (see ADR 026).

/** Concatenated, never resolved, so that `//host/x` stays a path. */
export function renderedUrl(publicOrigin: string, req: express.Request): string {
  return new URL(publicOrigin + req.originalUrl).href
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
    const body = req.method === 'GET' || req.method === 'HEAD' ? {} : { body: createReadableStreamFromReadable(req), duplex: 'half' as const }
    const request = new Request(url, { method: req.method, headers, signal: controller.signal, ...body })
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
