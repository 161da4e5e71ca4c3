import { createHash } from 'node:crypto'
import type { RequestHandler } from 'express'
import type { Brand } from '~/lib/brand'
import type { Config } from './config'

/** Served under URLs named by their content, so browsers and CDNs may keep them for a year. */
type BrandFile = { bytes: Buffer; type: string }

const CSS = 'text/css; charset=utf-8'
const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/svg+xml': 'svg', [CSS]: 'css' }

const BRAND_PATH = '/brand/'

function hashed(files: Map<string, BrandFile>, stem: string, file: BrandFile): string {
  const hash = createHash('sha256').update(file.bytes).digest('hex').slice(0, 16)
  const url = `${BRAND_PATH}${stem}-${hash}.${EXTENSIONS[file.type]}`
  files.set(url, file)
  return url
}

export function brandAssets(brand: Config['brand']) {
  const files = new Map<string, BrandFile>()
  const page: Brand = {}
  const names = Object.fromEntries(Object.entries(brand.name).filter(([, name]) => name !== null))
  if (Object.keys(names).length) page.name = names
  if (brand.logo) {
    const { logo, logoDark } = brand
    page.logo = {
      src: hashed(files, 'logo', logo),
      ...(logoDark ? { dark: hashed(files, 'logo-dark', logoDark) } : {}),
      width: logo.width,
      height: logo.height,
    }
  }
  if (brand.accent) {
    const { light, dark } = brand.accent
    const css =
      `:root{--accent:${light};--focus:${light}}\n` +
      `@media (prefers-color-scheme:dark){:root{--accent:${dark};--focus:${dark}}}\n`
    page.stylesheet = hashed(files, 'accent', { bytes: Buffer.from(css), type: CSS })
  }
  return { page, files }
}

const IMMUTABLE = 'public, max-age=31536000, immutable'

/** Serves the brand's files; the express app hands it a GET or HEAD only. */
export function brandFiles({ files }: ReturnType<typeof brandAssets>): RequestHandler {
  return (req, res, next) => {
    const file = files.get(req.path)
    if (!file) return next()
    res.locals.route = 'static'
    res.set('Cache-Control', IMMUTABLE).type(file.type)
    // An SVG opened on its own is a document of this origin: it may run nothing and load nothing.
    if (file.type === 'image/svg+xml')
      res.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
    res.send(file.bytes)
  }
}
