import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { startPortal } from '../../dev/portal'
import { ownPortal } from '../support/portal'

/**
 * The operator's brand (docs/brand.md; ADR 040) as the built portal serves it: the name in the
 * header and every title, per language; the logo as an image named by the brand, served at a
 * content-named URL browsers keep for a year; the accent in a stylesheet of its own. And a start
 * refused in one line when a brand setting is wrong.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const dir = mkdtempSync(path.join(tmpdir(), 'brand-'))
const LOGO = path.join(dir, 'acme.svg')
const LOGO_DARK = path.join(dir, 'acme-dark.png')
writeFileSync(
  LOGO,
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 40"><rect width="40" height="40" fill="#7a1fa2"/></svg>',
)
writeFileSync(
  LOGO_DARK,
  Buffer.concat([
    Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
    Buffer.from([0, 0, 0, 160, 0, 0, 0, 40]),
    Buffer.alloc(40),
  ]),
)

const title = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1]
const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]
/** The header's content: from the app's container to the card. */
const header = (html: string) => /<header class="app-header">([\s\S]*?)<\/header>/.exec(html)?.[1] ?? ''

async function page(portal: { url: string }, pathname: string, language: 'fr' | 'en', init: RequestInit = {}) {
  const res = await fetch(`${portal.url}${pathname}`, {
    ...init,
    headers: { Cookie: `i18n_redirected=${language}`, ...init.headers },
  })
  return { status: res.status, html: await res.text() }
}

describe('a portal started with a brand', () => {
  const portal = ownPortal({
    BRAND_NAME: 'Acme',
    BRAND_NAME_FR: 'Acmé',
    BRAND_ACCENT: '#7a1fa2',
    BRAND_ACCENT_DARK: '#d9a6f0',
    BRAND_LOGO: LOGO,
    BRAND_LOGO_DARK: LOGO_DARK,
  })

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  it.each([
    ['fr', 'Acmé', 'Connexion · Acmé'],
    ['en', 'Acme', 'Sign In · Acme'],
  ] as const)('names it in the header and the title (%s)', async (language, name, pageTitle) => {
    const { html } = await page(portal, '/', language)
    expect(title(html)).toBe(pageTitle)
    const img = /<img [^>]*>/.exec(header(html))?.[0] ?? ''
    expect(attr(img, 'alt')).toBe(name)
    expect(attr(img, 'src')).toMatch(/^\/brand\/logo-[0-9a-f]{16}\.svg$/)
    expect([attr(img, 'width'), attr(img, 'height')]).toEqual(['160', '40'])
    expect(header(html)).toMatch(
      /<source srcSet="\/brand\/logo-dark-[0-9a-f]{16}\.png" media="\(prefers-color-scheme: dark\)"\/>/,
    )
  })

  it('names it on a page whose root loader never ran (a form post refused for its missing cookie)', async () => {
    const { status, html } = await page(portal, '/forgot-password', 'en', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: portal.url },
      body: 'email=a%40example.com',
    })
    expect(status).toBe(403)
    expect(title(html)).toMatch(/ · Acme$/)
    expect(attr(/<img [^>]*>/.exec(header(html))?.[0] ?? '', 'alt')).toBe('Acme')
  })

  it('serves the logos as they are on disk, for a year, at URLs named by their content', async () => {
    const { html } = await page(portal, '/', 'fr')
    for (const [pattern, file, type] of [
      [/\/brand\/logo-[0-9a-f]{16}\.svg/, LOGO, 'image/svg+xml'],
      [/\/brand\/logo-dark-[0-9a-f]{16}\.png/, LOGO_DARK, 'image/png'],
    ] as const) {
      const url = pattern.exec(html)![0]
      const res = await fetch(`${portal.url}${url}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(res.headers.get('content-type')).toContain(type)
      expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(file))).toBe(true)
      expect((await fetch(`${portal.url}${url}`, { method: 'HEAD' })).status).toBe(200)
      // A file answers a GET or HEAD only: a post there is no file.
      const posted = await fetch(`${portal.url}${url}`, { method: 'POST', body: '' })
      expect(posted.headers.get('content-type')).not.toContain(type)
    }
    expect((await fetch(`${portal.url}/brand/logo-0000000000000000.svg`)).status).toBe(404)
  })

  it('ends every page’s title with the name', async () => {
    for (const pathname of ['/', '/forgot-password', '/logout', '/new-password', '/sso/start', '/nowhere']) {
      const { html } = await page(portal, pathname, 'en')
      expect(title(html), pathname).toMatch(/^[^·]+ · Acme$/)
    }
  })

  it('links the accent’s stylesheet after the portal’s own, with the dark scheme’s accent as BRAND_ACCENT_DARK gives it', async () => {
    const { html } = await page(portal, '/', 'fr')
    const sheets = [...html.matchAll(/<link [^>]*rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!)
    expect(sheets).toHaveLength(2)
    expect(sheets[1]).toMatch(/^\/brand\/accent-[0-9a-f]{16}\.css$/)
    const res = await fetch(`${portal.url}${sheets[1]}`)
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    const css = await res.text()
    expect(css).toContain(':root{--accent:#7a1fa2;--focus:#7a1fa2}')
    expect(css).toContain('@media (prefers-color-scheme:dark){:root{--accent:#d9a6f0;--focus:#d9a6f0}}')
  })
})

describe('a portal without brand settings', () => {
  const portal = inject('portal')

  it.each([
    ['fr', 'Portail d’authentification'],
    ['en', 'Authentication portal'],
  ] as const)(
    'shows the portal’s wordless mark and its name as text, in the page’s language (%s)',
    async (language, name) => {
      const { html } = await page(portal, '/', language)
      expect(header(html)).not.toContain('<img')
      expect(header(html)).toMatch(/<svg class="logo-mark"[^>]*aria-hidden="true"/)
      expect(header(html)).toContain(`<span class="logo-name">${name}</span>`)
      expect(title(html)).toMatch(new RegExp(` · ${name}$`))
      expect(html.match(/<link [^>]*rel="stylesheet"/g)).toHaveLength(1)
    },
  )
})

describe('a start with a wrong brand setting', () => {
  it('stops `npm run serve` with one line naming the setting and why', async () => {
    const started = startPortal({ BRAND_ACCENT: '#ffff00' })
    await expect(started).rejects.toThrow(
      /the portal exited with 1:\nInvalid configuration: BRAND_ACCENT: #ffff00 gives 1\.0:1 on the page background #f4f6fb \(needs 4\.5:1\)\n$/,
    )
  })

  it('stops `npm start` before anything starts, with the same line', async () => {
    const child = spawn(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/start.ts'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', BRAND_ACCENT: '#ffff00', BRAND_LOGO: path.join(dir, 'missing.svg') },
    })
    let output = ''
    child.stdout.on('data', (c: Buffer) => (output += c.toString()))
    child.stderr.on('data', (c: Buffer) => (output += c.toString()))
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect(code).toBe(1)
    expect(output).toBe(
      `Invalid configuration: BRAND_LOGO: cannot read ${path.join(dir, 'missing.svg')} (ENOENT)\n` +
        'Invalid configuration: BRAND_ACCENT: #ffff00 gives 1.0:1 on the page background #f4f6fb (needs 4.5:1)\n',
    )
  })
})
