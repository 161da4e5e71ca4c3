import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

/**
 * What a first visit to a page costs on the wire: the HTML, the CSS and the JavaScript the
 * browser fetches before the page is interactive, each gzipped as a CDN or proxy would serve it.
 * Shared by `npm run size` (scripts/size.ts) and tests/integration/page-size.test.ts.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** 1 KB = 1024 bytes throughout. */
export const KB = 1024
/**
 * Gzip budgets per page (each total must stay under), and the raw size of any single image. The
 * framework alone is 104 KB of JavaScript (React DOM 19: 64.7, React Router 8: 37.7, 2026-11), so
 * JavaScript's budget, the page's language's strings counted in it (ADR 044), leaves the portal's own
 * code 26 KB (ADR 032, ADR 039).
 */
// 131 KB on the deadends branch: /new-password is 130.6 KB with the limits' time and the dead links' ways on
// (ADR 073); main's account strings apart (ADR 068) win more than that back, and the budget returns to 130 KB.
export const BUDGETS = { html: 12 * KB, css: 10 * KB, js: 131 * KB, file: 20 * KB } as const
export const PAGES = ['/', '/forgot-password', '/new-password'] as const
/** Pages measured signed in (and confirmed), under the same budgets: the second factors' (the QR code is inline SVG; ADR 041, 042). */
export const SIGNED_IN_PAGES = ['/account', '/account/second-factor/totp', '/account/second-factor/remove', '/account/second-factor/phone'] as const

export interface Resource {
  url: string
  bytes: number
  gzip: number
}

export interface PageSize {
  path: string
  status: number
  html: Resource
  css: Resource[]
  js: Resource[]
  /** Gzip bytes per kind. */
  total: { html: number; css: number; js: number }
  /** Web-font URLs on another origin found in the HTML or CSS (a privacy leak and a render delay). */
  externalFonts: string[]
  /** Whether the page turns the browser's error reporter on (SENTRY_DSN set): it loads when idle, after this. */
  reporting: boolean
}

export interface LargeFile {
  file: string
  bytes: number
}

const IMAGE = /\.(svg|png|jpe?g|gif|webp|avif|ico|bmp)$/i
const FONT_HOSTS = /(?:https?:)?\/\/(?:fonts\.(?:googleapis|gstatic)\.com|use\.typekit\.net|fonts\.bunny\.net)[^\s"')]*/gi
const FONT_FILE = /(?:https?:)?\/\/[^\s"')]+\.(?:woff2?|ttf|otf|eot)\b[^\s"')]*/gi

function measure(url: string, body: Buffer): Resource {
  return { url, bytes: body.length, gzip: gzipSync(body, { level: 9 }).length }
}

async function fetchBody(url: string, cookie?: string): Promise<{ status: number; body: Buffer }> {
  const res = await fetch(url, {
    redirect: 'manual',
    headers: { 'Accept-Language': 'fr-FR,fr;q=0.9', ...(cookie ? { Cookie: cookie } : {}) },
  })
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) }
}

/** Attributes of every `<tag …>` in the HTML; React writes them double-quoted. */
function tags(html: string, tag: string): Array<Record<string, string>> {
  const found: Array<Record<string, string>> = []
  for (const [, attrs = ''] of html.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, 'gi'))) {
    const record: Record<string, string> = {}
    for (const [, name = '', value = ''] of attrs.matchAll(/([\w:-]+)(?:="([^"]*)")?/g)) {
      record[name.toLowerCase()] = value.replaceAll('&amp;', '&')
    }
    found.push(record)
  }
  return found
}

/** Specifiers imported by a module: static imports and re-exports, plus `import("…")` when asked. */
function importsOf(code: string, dynamic: boolean): string[] {
  const specifiers = [...code.matchAll(/(?:^|[;\s}])(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["']([^"']+\.m?js)["']/g)]
  if (dynamic) specifiers.push(...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g))
  return specifiers.map((m) => m[1] ?? '')
}

/**
 * Measures one page as a first visit (no cookies, or a signed-in browser's `cookie` for the page itself): the stylesheets it links, and every script the
 * browser runs at load. React Router lists them as modulepreload links and in its inline module script;
 * the chunks' own static imports are followed too, in case a preload link is ever missing.
 */
export async function measurePage(origin: string, pagePath: string, cookie?: string): Promise<PageSize> {
  const pageUrl = new URL(pagePath, origin).href
  const page = await fetchBody(pageUrl, cookie)
  const html = page.body.toString('utf8')

  const links = tags(html, 'link')
  const cssUrls = links.filter((l) => l.rel === 'stylesheet' && l.href).map((l) => new URL(l.href!, pageUrl).href)
  const jsQueue = [
    ...tags(html, 'script').filter((s) => s.src).map((s) => s.src!),
    ...links.filter((l) => l.rel === 'modulepreload' && l.href).map((l) => l.href!),
    // The page's strings, which the script fetches before it runs the page (app/lib/i18n-browser.ts).
    ...links.filter((l) => l.rel === 'preload' && l.as === 'fetch' && l.href).map((l) => l.href!),
    ...[...html.matchAll(/<script\b[^>]*type="module"[^>]*>([\s\S]*?)<\/script>/gi)].flatMap((m) => importsOf(m[1] ?? '', true)),
  ].map((src) => new URL(src, pageUrl).href)

  const css: Resource[] = []
  const cssText: string[] = []
  for (const url of new Set(cssUrls)) {
    const { status, body } = await fetchBody(url)
    if (status !== 200) throw new Error(`${url} answered ${status}`)
    css.push(measure(url, body))
    cssText.push(body.toString('utf8'))
  }

  const js: Resource[] = []
  const seen = new Set<string>()
  for (let url = jsQueue.shift(); url !== undefined; url = jsQueue.shift()) {
    if (seen.has(url)) continue
    seen.add(url)
    const { status, body } = await fetchBody(url)
    if (status !== 200) throw new Error(`${url} answered ${status}`)
    js.push(measure(url, body))
    jsQueue.push(...importsOf(body.toString('utf8'), false).map((s) => new URL(s, url).href))
  }

  const text = [html, ...cssText].join('\n')
  const externalFonts = [...new Set([...text.matchAll(FONT_HOSTS), ...text.matchAll(FONT_FILE)].map((m) => m[0]))].filter(
    (url) => new URL(url, origin).origin !== new URL(origin).origin,
  )
  const sum = (list: Resource[]) => list.reduce((total, r) => total + r.gzip, 0)
  const htmlSize = measure(pageUrl, page.body)
  return {
    path: pagePath,
    status: page.status,
    html: htmlSize,
    css,
    js,
    total: { html: htmlSize.gzip, css: sum(css), js: sum(js) },
    externalFonts,
    reporting: /<meta name="sentry" content="[^"]+"/.test(html),
  }
}

export async function measurePages(origin: string, paths: readonly string[] = PAGES): Promise<PageSize[]> {
  const pages: PageSize[] = []
  for (const pagePath of paths) pages.push(await measurePage(origin, pagePath))
  return pages
}

function filesUnder(dir: string): string[] {
  let entries: string[]
  try {
    entries = readdirSync(dir)
  } catch {
    return []
  }
  return entries.flatMap((name) => {
    const file = path.join(dir, name)
    return statSync(file).isDirectory() ? filesUnder(file) : [file]
  })
}

/** Every file in public/ and every image in build/client/assets, by raw size, largest first. */
export function staticFiles(): LargeFile[] {
  const files = [...filesUnder(path.join(root, 'public')), ...filesUnder(path.join(root, 'build/client/assets')).filter((f) => IMAGE.test(f))]
  return files
    .map((file) => ({ file: path.relative(root, file), bytes: statSync(file).size }))
    .sort((a, b) => b.bytes - a.bytes)
}

/** One line per exceeded budget; empty when everything fits. */
export function budgetProblems(pages: PageSize[], files: LargeFile[] = staticFiles()): string[] {
  const problems: string[] = []
  const over = (what: string, size: number, budget: number) =>
    size >= budget && problems.push(`${what}: ${kb(size)} KB, budget under ${kb(budget)} KB`)
  for (const page of pages) {
    over(`${page.path} HTML (gzip)`, page.total.html, BUDGETS.html)
    over(`${page.path} CSS (gzip)`, page.total.css, BUDGETS.css)
    over(`${page.path} JS (gzip)`, page.total.js, BUDGETS.js)
    for (const url of page.externalFonts) problems.push(`${page.path} loads an external font: ${url}`)
  }
  for (const { file, bytes } of files) over(file, bytes, BUDGETS.file)
  return problems
}

export function kb(bytes: number): string {
  return (bytes / KB).toFixed(1)
}
