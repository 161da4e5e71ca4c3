// Writes a brotli (.br) and a gzip (.gz) copy beside each script, style sheet, strings file and SVG of
// build/client/assets, once, at their strongest settings; the portal serves them as the browser asks
// (app/.server/http/precompressed.ts, ADR 045). A copy that would not be smaller is not written.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const ASSETS = 'build/client/assets'
const COMPRESSIBLE = /\.(?:js|css|json|svg)$/

for (const name of readdirSync(ASSETS).filter((file) => COMPRESSIBLE.test(file))) {
  const file = path.join(ASSETS, name)
  const bytes = readFileSync(file)
  const copies = {
    br: brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }),
    gz: gzipSync(bytes, { level: 9 }),
  }
  for (const [extension, copy] of Object.entries(copies)) {
    if (copy.length < bytes.length) writeFileSync(`${file}.${extension}`, copy)
  }
}
