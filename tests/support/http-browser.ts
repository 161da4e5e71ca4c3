import type { APIRequestContext, APIResponse } from '@playwright/test'
import { csrfTokenIn } from './csrf'

/** An answer whose body was read already: `html` is its text (the response can still be read too). */
export type Answer = Response & { html: string }

export interface HttpBrowserOptions {
  /** What the browser sends as Origin: the portal's PUBLIC_URL, which may be https in front of the plain-http server a test reaches. */
  origin?: string
  /** The client's address, sent as X-Forwarded-For (the portal under test runs with TRUST_PROXY=1, so it believes it). */
  ip?: string
  /** Sent with every request (e.g. Accept-Language). */
  headers?: Record<string, string>
}

/**
 * A browser without JavaScript, for vitest: a cookie jar (what the portal sets, and what a test
 * plants), and the two ways such a browser sends a form:
 * - `post(action, fields, page)` opens the form's page (for its CSRF token and cookie), then posts;
 *   it keeps the cookies of both answers.
 * - `load(page)` then `submit(action, fields)`: posts the form of the page loaded last, as often as
 *   the test wants (in parallel too); the answer's cookies are kept only with `remember: true`.
 * `get` and `post` never follow a redirect (the test reads it); `load` follows them, as a
 * navigation does. A path may be absolute (another portal, a link from an email).
 */
export class HttpBrowser {
  readonly jar = new Map<string, string>()
  /** Every Set-Cookie header the portal sent and the browser kept, in order. */
  readonly setCookies: string[] = []
  /** The HTML of the page loaded last. */
  html = ''
  private csrf = ''
  private readonly origin: string
  private readonly extra: Record<string, string>

  constructor(
    private readonly base: string,
    { origin = base, ip, headers = {} }: HttpBrowserOptions = {},
  ) {
    this.origin = origin
    this.extra = { ...(ip ? { 'X-Forwarded-For': ip } : {}), ...headers }
  }

  cookie(name: string): string | undefined {
    return this.jar.get(name)
  }

  plant(name: string, value: string) {
    this.jar.set(name, value)
  }

  private keep(res: Response): Response {
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

  private headers(more: Record<string, string> = {}): Record<string, string> {
    const cookie = [...this.jar].map(([n, v]) => `${n}=${v}`).join('; ')
    return { ...this.extra, ...(cookie ? { Cookie: cookie } : {}), ...more }
  }

  private url(path: string, at = this.base): string {
    return /^[a-z][a-z\d+.-]*:/i.test(path) ? path : `${at}${path}`
  }

  private send(url: string, fields: Record<string, string>, csrf: string, origin: string): Promise<Response> {
    return fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: this.headers({ Origin: origin, 'Content-Type': 'application/x-www-form-urlencoded' }),
      body: new URLSearchParams({ csrf, ...fields }),
    })
  }

  /** GET `path` (at another portal's base, optionally), its redirect not followed; keeps its cookies. */
  async get(path: string, at = this.base): Promise<Response> {
    return this.keep(await fetch(this.url(path, at), { redirect: 'manual', headers: this.headers() }))
  }

  /** Opens `page` (at another portal's base, optionally), following redirects: keeps its cookies, HTML and CSRF token. */
  async load(page = '/', at = this.base): Promise<this> {
    const res = this.keep(await fetch(this.url(page, at), { headers: this.headers() }))
    this.html = await res.text()
    this.csrf = csrfTokenIn(this.html) ?? ''
    if (!this.csrf) throw new Error(`no CSRF token on ${page} (${res.status})`)
    return this
  }

  /** The CSRF token of a form page (GET, no redirect followed), which also sets the CSRF cookie on a first visit. */
  async token(page = '/'): Promise<string> {
    const res = await this.get(page)
    const token = csrfTokenIn(await res.text())
    if (!token) throw new Error(`no CSRF token on ${page} (${res.status})`)
    return token
  }

  /** Opens the form's `page`, then posts `fields` to `path` with its token; keeps the cookies. */
  async post(path: string, fields: Record<string, string>, page = '/'): Promise<Response> {
    const csrf = await this.token(page)
    return this.keep(await this.send(this.url(path), fields, csrf, this.origin))
  }

  /** Posts the form of the page loaded last (to another portal's base, optionally); `remember` keeps the cookies it sets. */
  async submit(action: string, fields: Record<string, string>, { at = this.base, remember = false } = {}): Promise<Answer> {
    const res = await this.send(this.url(action, at), fields, this.csrf, at === this.base ? this.origin : at)
    if (remember) this.keep(res)
    return Object.assign(res, { html: await res.clone().text() })
  }

  /** Signs in with the sign-in form (the page loaded last carries the token). */
  signIn(email: string, password: string, options: { at?: string; remember?: boolean } = {}): Promise<Answer> {
    return this.submit('/?index', { email, password }, options)
  }

  /** "Confirm it's you" with the password, on the way to the account page `next`: the answer (a 303 to `next`). */
  async confirm(password: string, next: string): Promise<Answer> {
    const confirm = `/account/confirm?${new URLSearchParams({ next })}`
    await this.load(confirm)
    return this.submit(confirm, { password }, { remember: true })
  }
}

/** A browser in English at client address `ip`, on the sign-in page. */
export function browserAt(base: string, ip: string): Promise<HttpBrowser> {
  return new HttpBrowser(base, { ip, headers: { 'Accept-Language': 'en' } }).load()
}

/**
 * The same browser in a Playwright spec: Playwright's request context is the cookie jar. The CSRF
 * token of the form on `path`.
 */
export async function csrfFrom(request: APIRequestContext, path: string): Promise<string> {
  const response = await request.get(path)
  const token = csrfTokenIn(await response.text())
  if (!token) throw new Error(`no CSRF token on ${path} (status ${response.status()})`)
  return token
}

/** In a Playwright spec: opens the form's page (`formPage`, by default `path`), then posts `fields` to `path`, no redirect followed. */
export async function postForm(
  request: APIRequestContext,
  path: string,
  fields: Record<string, string>,
  options: { formPage?: string; headers?: Record<string, string> } = {},
): Promise<APIResponse> {
  const csrf = await csrfFrom(request, options.formPage ?? path)
  return request.post(path, { form: { csrf, ...fields }, maxRedirects: 0, headers: options.headers })
}

/** The alert's markup: what a visitor is told, to compare two answers byte for byte. */
export function alertMarkup(html: string): string | null {
  return /<div[^>]*role="alert"[^>]*>[\s\S]*?<\/div>/.exec(html)?.[0] ?? null
}

/** The page's heading as a person reads it: its text, whatever markup keeps its words together. */
export function headingText(html: string): string | undefined {
  return /<h1>(.*?)<\/h1>/s.exec(html)?.[1]?.replace(/<[^>]*>/g, '')
}

/**
 * A page with what differs by visitor and by moment masked, to compare two answers byte for byte: the CSRF
 * token, the CSP nonces, and the resend wait counted from when the page was served (in its data and on
 * the button's clock: a second may pass between one request and its page and not another's).
 */
export function maskServed(html: string): string {
  const csrf = csrfTokenIn(html)
  return (csrf ? html.replaceAll(csrf, 'CSRF') : html)
    .replace(/nonce="[^"]+"/g, 'nonce=""')
    .replace(/\b(sentAt\W+)\d+/g, '$1T')
    .replace(/\b(resendIn\W+)\d+/g, '$1S')
    .replace(/\(0:\d\d\)/g, '(0:SS)')
}
