import { describe, expect, it } from 'vitest'
import { ownPortal } from '../support/portal'

/**
 * A long path must cost no more than a short unknown one. React Router matches every
 * parent of a path (lazy route discovery) and a trailing-slash regex backtracked on every request,
 * so `/a/a/…` with 4,000 segments took ~800 ms. Timings are compared as ratios of medians against
 * `/nope` on the same server, never as milliseconds.
 */

const MAX_RATIO = 3

const LONG_SEGMENTS = '/a'.repeat(4000)
const SLASHES = '/forgot-password' + '/'.repeat(8000)
const SLASHES_THEN_LETTER = '/' + '/'.repeat(8000) + 'x'
const SHORT = '/nope'

// Its own: the timings want no other file's requests, and the access log is read.
const portal = ownPortal()

async function timed(path: string, headers: Record<string, string> = {}): Promise<number> {
  const started = performance.now()
  const res = await fetch(portal.url + path, { headers, redirect: 'manual' })
  await res.arrayBuffer()
  return performance.now() - started
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/**
 * `path`'s median time over a short unknown path's, the two requested in turn (after two warm-ups of
 * each), so that a change in the machine's load weighs on both sides alike.
 */
async function ratioOfMedians(path: string, runs = 11): Promise<number> {
  for (const warmUp of [SHORT, path, SHORT, path]) await timed(warmUp)
  const short: number[] = []
  const long: number[] = []
  for (let i = 0; i < runs; i++) {
    short.push(await timed(SHORT))
    long.push(await timed(path))
  }
  return median(long) / median(short)
}

describe('long paths', () => {
  it.each([
    ['4,000 segments', LONG_SEGMENTS],
    ['a real route followed by 8,000 slashes', SLASHES],
    ['8,000 slashes then a letter', SLASHES_THEN_LETTER],
  ])('answers %s with the translated 404 page, in the visitor language', async (_name, path) => {
    for (const [lang, text] of [
      ['fr', 'Page introuvable'],
      ['en', 'Page not found'],
    ] as const) {
      const res = await fetch(portal.url + path, { headers: { 'Accept-Language': lang }, redirect: 'manual' })
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toContain('text/html')
      const html = await res.text()
      expect(html).toContain(text)
      expect(html).toMatch(/<h1[^>]*>[^<]*<code[^>]*>[^<]*…<\/code>/) // the path, shown truncated
      expect(html.length, 'the long path is not repeated in the page').toBeLessThan(path.length + 20_000)
      expect(html).not.toContain('a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a')
      expect(html).not.toContain('//////////////////////////////////////////////////////////////////////////////')
      expect(html).not.toContain('name="email"') // not the forgot-password form
    }
  })

  it('still shows a short unknown path in full', async () => {
    const res = await fetch(`${portal.url}/nope/x?y=1`, { headers: { 'Accept-Language': 'en' } })
    expect(res.status).toBe(404)
    expect(await res.text()).toContain('Page not found <code class="error-path">/nope/x?y=1</code>')
  })

  it('answers a long path no slower than a small multiple of a short unknown path', async () => {
    const ratios: Record<string, number> = {}
    for (const [name, path] of [
      ['segments', LONG_SEGMENTS],
      ['slashes', SLASHES],
      ['slashes-letter', SLASHES_THEN_LETTER],
      ['data', LONG_SEGMENTS + '.data'],
    ] as const) {
      ratios[name] = await ratioOfMedians(path)
    }
    console.log('long path / short 404 median ratios', ratios)
    for (const [name, ratio] of Object.entries(ratios)) expect(ratio, name).toBeLessThanOrEqual(MAX_RATIO)
  }, 120_000)

  it('bounds the lazy route discovery endpoint (/__manifest)', async () => {
    const html = await (await fetch(`${portal.url}/`)).text()
    const version = /"version":\s*"([^"]+)"/.exec(html)?.[1]
    expect(version).toBeTruthy()
    const manifest = (query: string) => `/__manifest?${query}&version=${version}`

    const ok = await fetch(portal.url + manifest('paths=/forgot-password'))
    expect(ok.status).toBe(200)
    expect(Object.keys((await ok.json()) as object)).toContain('routes/forgot-password')

    const longOne = manifest(`paths=${LONG_SEGMENTS.slice(0, 7000)}`)
    const many = manifest(
      `paths=${Array.from({ length: 900 }, (_, i) => `/a${i}/b/c`)
        .join(',')
        .slice(0, 7000)}`,
    )
    const res = await fetch(portal.url + longOne)
    expect([200, 400]).toContain(res.status)

    const ratios = { longOne: await ratioOfMedians(longOne), many: await ratioOfMedians(many) }
    console.log('/__manifest / short 404 median ratios', ratios)
    for (const [name, ratio] of Object.entries(ratios)) expect(ratio, name).toBeLessThanOrEqual(MAX_RATIO)
  }, 120_000)

  it('keeps /healthz fast while long-path requests run', async () => {
    /** Median /healthz time while five clients request `path` in a loop. */
    async function healthzUnder(path: string): Promise<number> {
      let running = true
      const deadline = Date.now() + 20_000
      const load = Array.from({ length: 5 }, async () => {
        while (running && Date.now() < deadline) await timed(path).catch(() => 0)
      })
      await new Promise((r) => setTimeout(r, 100))
      const times: number[] = []
      // A failed probe (a reset connection under load) counts as infinitely slow.
      for (let i = 0; i < 15 && Date.now() < deadline; i++) times.push(await timed('/healthz').catch(() => Infinity))
      running = false
      await Promise.all(load)
      return median(times)
    }
    const underShort = await healthzUnder('/nope')
    const underLong = await healthzUnder(LONG_SEGMENTS)
    const underSlashes = await healthzUnder(SLASHES_THEN_LETTER)
    const ratios = { long: underLong / underShort, slashes: underSlashes / underShort }
    console.log('/healthz median under long-path load / under /nope load', ratios, 'ms', underShort.toFixed(2))
    for (const [name, ratio] of Object.entries(ratios)) expect(ratio, name).toBeLessThanOrEqual(MAX_RATIO)
  }, 120_000)

  it('labels long paths "other" in the access log and metrics', async () => {
    await (await fetch(portal.url + LONG_SEGMENTS, { headers: { 'X-Request-Id': 'long-path-1' } })).arrayBuffer()
    await new Promise((r) => setTimeout(r, 100))
    const line = portal
      .output()
      .split('\n')
      .find((l) => l.includes('"long-path-1"'))
    expect(line).toBeDefined()
    expect(line!.length).toBeLessThan(400)
    expect(JSON.parse(line!)).toMatchObject({ route: 'other', status: 404 })
  })
})
