import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A hostile site on loopback for CSRF tests: a tiny node:http server that serves pages which
 * auto-submit a form to the portal. The same server answers under two names:
 * - `crossSiteOrigin` (http://127.0.0.1:PORT) is cross-site to a portal on http://localhost:…
 *   (another registrable "site"): the browser sends `Sec-Fetch-Site: cross-site` and withholds
 *   SameSite=Lax cookies;
 * - `sameSiteOrigin` (http://localhost:PORT) is same-site but cross-origin (ports do not make
 *   sites): Lax cookies are sent, `Sec-Fetch-Site: same-site`, and only the Origin check is left
 *   to refuse — the position of a sibling subdomain that can also plant cookies.
 */
export interface Attacker {
  crossSiteOrigin: string
  sameSiteOrigin: string
  /** Serves `html` once under a fresh path; answers its path (to append to either origin). */
  host(html: string): string
  /** A page that submits `fields` to `action` as soon as it loads (JavaScript on). */
  autoSubmitForm(action: string, fields: Record<string, string>, enctype?: string): string
  close(): Promise<void>
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

export async function startAttacker(): Promise<Attacker> {
  const pages = new Map<string, string>()
  let next = 0
  const server: Server = createServer((req, res) => {
    const html = pages.get((req.url ?? '').split('?')[0] ?? '')
    if (req.method !== 'GET' || html === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found')
      return
    }
    // No CSP, no framing rules: the attacker's page runs whatever it likes.
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(html)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo

  const host = (html: string) => {
    const path = `/page-${++next}`
    pages.set(path, html)
    return path
  }

  return {
    crossSiteOrigin: `http://127.0.0.1:${port}`,
    sameSiteOrigin: `http://localhost:${port}`,
    host,
    autoSubmitForm(action, fields, enctype = 'application/x-www-form-urlencoded') {
      const inputs = Object.entries(fields)
        .map(
          ([name, value]) => `<input type="hidden" name="${escapeAttribute(name)}" value="${escapeAttribute(value)}">`,
        )
        .join('\n')
      return host(`<!doctype html>
<html><head><meta charset="utf-8"><title>Win a prize</title></head>
<body>
<form id="attack" method="post" action="${escapeAttribute(action)}" enctype="${escapeAttribute(enctype)}">
${inputs}
<button type="submit">Claim</button>
</form>
<script>document.getElementById('attack').submit()</script>
</body></html>`)
    },
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
    },
  }
}
