import { isUtf8 } from 'node:buffer'
import { readFileSync } from 'node:fs'

/** Read by content, not name, with the size its <img> reserves so that nothing moves when it loads. */
export interface LogoFile {
  bytes: Buffer
  type: 'image/svg+xml' | 'image/png'
  width: number
  height: number
}

/** The same bound as any image the portal serves (tests/support/page-size.ts). */
const LOGO_MAX_BYTES = 20 * 1024

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

export function readLogo(file: string): LogoFile | string {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch (error) {
    return `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`
  }
  if (bytes.length > LOGO_MAX_BYTES) {
    return `${file} is ${Math.ceil(bytes.length / 1024)} KB, over the ${LOGO_MAX_BYTES / 1024} KB a logo may weigh`
  }
  if (bytes.subarray(0, 8).equals(PNG_SIGNATURE)) {
    // IHDR comes first: width and height, big-endian, at bytes 16 and 20.
    const width = bytes.length >= 24 ? bytes.readUInt32BE(16) : 0
    const height = bytes.length >= 24 ? bytes.readUInt32BE(20) : 0
    return width && height ? { bytes, type: 'image/png', width, height } : `${file} is not a readable PNG`
  }
  const svg = svgSize(bytes)
  if (svg === 'not-svg') return `${file} is neither an SVG nor a PNG file`
  if (svg === null) return `${file}: its <svg> needs a viewBox or a width and height, for its proportions`
  return { bytes, type: 'image/svg+xml', ...svg }
}

function svgSize(bytes: Buffer): { width: number; height: number } | null | 'not-svg' {
  if (!isUtf8(bytes)) return 'not-svg'
  const text = bytes.toString()
  const start = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg\b([^>]*)>/i.exec(text)
  if (!start) return 'not-svg'
  const attrs = start[1] ?? ''
  const attr = (name: string) => new RegExp(`\\s${name}\\s*=\\s*["']([^"']*)["']`).exec(attrs)?.[1]
  const length = (value: string | undefined) => (value && /^\s*[\d.]+\s*(px)?\s*$/.test(value) ? parseFloat(value) : 0)
  const [width, height] = [length(attr('width')), length(attr('height'))]
  if (width > 0 && height > 0) return { width, height }
  const box = attr('viewBox')
    ?.trim()
    .split(/[\s,]+/)
    .map(Number)
  if (box?.length === 4 && box[2]! > 0 && box[3]! > 0) return { width: box[2]!, height: box[3]! }
  return null
}
