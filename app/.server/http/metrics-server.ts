import { createServer, type Server } from 'node:http'
import type { Registry } from 'prom-client'
import { metrics } from '~/.server/ops/metrics'

/** Bind it where only the scraper reaches. */
export function createMetricsServer(registry: Registry = metrics.registry): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found')
      return
    }
    registry.metrics().then(
      (body) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' })
        res.end(req.method === 'HEAD' ? undefined : body)
      },
      () => {
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics failed')
      },
    )
  })
}
