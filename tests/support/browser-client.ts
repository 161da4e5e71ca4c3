import { csrfTokenIn } from './csrf'

/**
 * A browser without JavaScript, for vitest: a cookie jar (what the portal sets, and what a test
 * plants), GET and form POST with the page's CSRF token, redirects not followed. `origin` is what
 * the browser sends as Origin: the portal's PUBLIC_URL, which may be https in front of the
 * plain-http server a test reaches (as behind a TLS-terminating proxy).
 */
export class BrowserClient {
  readonly jar = new Map<string, string>()
  /** Every Set-Cookie header the portal sent, in order. */
  readonly setCookies: string[] = []

  constructor(
    private readonly base: string,
    private readonly origin = base,
  ) {}

  private remember(res: Response): Response {
    for (const header of res.headers.getSetCookie()) {
      this.setCookies.push(header)
      const [pair = ''] = header.split(';')
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq)
      if (/;\s*Max-Age=0\b/i.test(header)) this.jar.delete(name)
      else this.jar.set(name, pair.slice(eq + 1))
    }
    return res
  }

  cookie(name: string): string | undefined {
    return this.jar.get(name)
  }

  plant(name: string, value: string) {
    this.jar.set(name, value)
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const cookie = [...this.jar].map(([n, v]) => `${n}=${v}`).join('; ')
    return { ...(cookie ? { Cookie: cookie } : {}), ...extra }
  }

  async get(path: string): Promise<Response> {
    return this.remember(await fetch(new URL(path, this.base), { redirect: 'manual', headers: this.headers() }))
  }

  /** The CSRF token of a form page (GET), which also sets the CSRF cookie on a first visit. */
  async token(page = '/'): Promise<string> {
    const res = await this.get(page)
    const token = csrfTokenIn(await res.text())
    if (!token) throw new Error(`no CSRF token on ${page} (${res.status})`)
    return token
  }

  async post(path: string, fields: Record<string, string>, page = '/'): Promise<Response> {
    const csrf = await this.token(page)
    return this.remember(
      await fetch(new URL(path, this.base), {
        method: 'POST',
        redirect: 'manual',
        headers: this.headers({ Origin: this.origin, 'Content-Type': 'application/x-www-form-urlencoded' }),
        body: new URLSearchParams({ csrf, ...fields }),
      }),
    )
  }
}
