import http from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { beforeAll, describe, expect, inject, it } from 'vitest'

/**
 * The built portal serves its hashed assets precompressed (ADR 045): brotli or gzip as the browser
 * asks, the same bytes once decoded, and never a page, whatever the browser accepts (a page holds a
 * CSRF token next to what the visitor typed: BREACH).
 */
const portal = inject('portal')
let assets: string[] = []

interface Raw {
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
}

/** A request with exactly the headers given: fetch would add its own Accept-Encoding and decode the body. */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${portal.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

const decode = { br: brotliDecompressSync, gzip: gunzipSync } as const

beforeAll(async () => {
  const html = (await raw('/')).body.toString()
  assets = [...new Set([...html.matchAll(/(?:href|src)="(\/assets\/[^"]+\.(?:js|css|json))"/g)].map((m) => m[1]!))]
})

describe('precompressed assets', () => {
  it('the sign-in page names a script, a style sheet and its strings', () => {
    expect(['.js', '.css', '.json'].map((ext) => assets.some((a) => a.endsWith(ext)))).toEqual([true, true, true])
  })

  it('come back br or gzip as asked, with Vary: Accept-Encoding and long caching, the same bytes once decoded', async () => {
    for (const asset of assets.filter((a) => /\.(?:css|json)$/.test(a) || a.includes('entry.client'))) {
      const plain = await raw(asset)
      expect([asset, plain.status, plain.headers['content-encoding']]).toEqual([asset, 200, undefined])
      expect(plain.headers.vary).toMatch(/accept-encoding/i)
      for (const encoding of ['br', 'gzip'] as const) {
        const answer = await raw(asset, { 'Accept-Encoding': encoding })
        expect([asset, answer.status, answer.headers['content-encoding']]).toEqual([asset, 200, encoding])
        expect(answer.headers.vary).toMatch(/accept-encoding/i)
        expect(answer.headers['cache-control']).toMatch(/immutable/)
        expect(answer.headers['content-type']).toBe(plain.headers['content-type'])
        expect(answer.body.length).toBeLessThan(plain.body.length)
        expect(answer.headers.etag, 'each encoding has its own validator').not.toBe(plain.headers.etag)
        expect(decode[encoding](answer.body).equals(plain.body)).toBe(true)
      }
    }
  })

  it('pick brotli from what Chromium sends, gzip when brotli is refused, and the bytes themselves otherwise', async () => {
    const asset = assets.find((a) => a.endsWith('.css'))!
    const chosen = async (accept: string) => (await raw(asset, { 'Accept-Encoding': accept })).headers['content-encoding'] ?? 'identity'
    expect(await chosen('gzip, deflate, br, zstd')).toBe('br')
    expect(await chosen('br;q=0, gzip')).toBe('gzip')
    expect(await chosen('deflate')).toBe('identity')
    expect(await chosen('*')).toBe('br')
  })

  it('answer HEAD and Range requests on the encoded bytes', async () => {
    const asset = assets.find((a) => a.endsWith('.css'))!
    const full = await raw(asset, { 'Accept-Encoding': 'br' })
    const head = await raw(asset, { 'Accept-Encoding': 'br' }, 'HEAD')
    expect([head.status, head.headers['content-encoding'], head.headers['content-length'], head.body.length]).toEqual([
      200, 'br', String(full.body.length), 0,
    ])
    const part = await raw(asset, { 'Accept-Encoding': 'gzip', Range: 'bytes=0-9' })
    const gzip = await raw(asset, { 'Accept-Encoding': 'gzip' })
    expect([part.status, part.headers['content-encoding'], part.headers['content-range']]).toEqual([
      206, 'gzip', `bytes 0-9/${gzip.body.length}`,
    ])
    expect(part.body.equals(gzip.body.subarray(0, 10))).toBe(true)
    // Its error is plain text, not labelled as a coding it is not in.
    const beyond = await raw(asset, { 'Accept-Encoding': 'br', Range: `bytes=${full.body.length + 10}-` })
    expect([beyond.status, beyond.headers['content-encoding']]).toEqual([416, undefined])
    const again = await raw(asset, { 'Accept-Encoding': 'br', 'If-None-Match': String(full.headers.etag) })
    expect(again.status).toBe(304)
  })

  it('never compress a page, whatever the browser accepts', async () => {
    for (const path of ['/', '/forgot-password', '/new-password', '/no-such-page', '/assets/no-such-file.js']) {
      for (const accept of ['br', 'gzip', 'gzip, deflate, br, zstd', '*']) {
        const answer = await raw(path, { 'Accept-Encoding': accept, 'Accept-Language': 'fr' })
        expect([path, accept, answer.headers['content-encoding']]).toEqual([path, accept, undefined])
      }
    }
  })
})
