import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

/** ARCHITECTURE: the browser bundle holds no module of server/ (secrets, the identity client, limits). */
const ASSETS = path.resolve('build/client/assets')
const SERVER_MARKERS = ['identitytoolkit', 'securetoken', 'createSessionCookie', 'RateLimiterRedis', 'timingSafeEqual', 'SESSION_SECRET', 'firebase-admin', 'process.env']

describe('the browser bundle', () => {
  it('holds no server module', () => {
    if (!existsSync(ASSETS)) throw new Error('No build found: run `npm run build` first')
    const scripts = readdirSync(ASSETS).filter((f) => f.endsWith('.js'))
    expect(scripts.length).toBeGreaterThan(3)
    const found = scripts.flatMap((file) => {
      const text = readFileSync(path.join(ASSETS, file), 'utf8')
      return SERVER_MARKERS.filter((marker) => text.includes(marker)).map((marker) => `${file}: ${marker}`)
    })
    expect(found).toEqual([])
  })
})
