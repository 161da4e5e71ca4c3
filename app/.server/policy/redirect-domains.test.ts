import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type * as AuthorizedDomains from './redirect'

/**
 * The authorizedDomains cache: five minutes after a successful read, and after a
 * failed one a back-off (30 s) instead of a new read on every page view during an outage.
 * Fake timers drive Date.now; the identity client is a stub.
 */

const getProjectConfig = vi.fn<() => Promise<{ authorizedDomains: string[] }>>()
vi.mock('~/.server/identity', () => ({ getIdentity: () => ({ getProjectConfig }) }))

let domains: typeof AuthorizedDomains

beforeEach(async () => {
  vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z'), toFake: ['Date'] })
  // A fresh module, so a fresh cache.
  vi.resetModules()
  getProjectConfig.mockReset()
  domains = await import('./redirect')
})
afterEach(() => {
  vi.useRealTimers()
})

const down = () => Promise.reject(Object.assign(new Error('unavailable'), { code: 'auth/network-request-failed' }))
const up = (...hosts: string[]) => Promise.resolve({ authorizedDomains: hosts })
const seconds = (n: number) => vi.advanceTimersByTime(n * 1000)
/** Lets a background read (knownAuthorizedDomains) settle. */
const settle = () => new Promise((r) => setImmediate(r))

describe('authorizedDomains', () => {
  it('reads once, then again only after five minutes', async () => {
    getProjectConfig.mockImplementation(() => up('App.Example.com'))
    expect([...(await domains.getAuthorizedDomains())]).toEqual(['app.example.com'])
    seconds(299)
    await domains.getAuthorizedDomains()
    expect(getProjectConfig).toHaveBeenCalledTimes(1)
    seconds(2)
    await domains.getAuthorizedDomains()
    expect(getProjectConfig).toHaveBeenCalledTimes(2)
  })

  it('after a failed read, waits 30 s before reading again, however many pages are viewed', async () => {
    getProjectConfig.mockImplementation(down)
    expect((await domains.getAuthorizedDomains()).size).toBe(0)
    expect(getProjectConfig).toHaveBeenCalledTimes(1)
    for (let i = 0; i < 20; i++) {
      seconds(1)
      await domains.getAuthorizedDomains()
      domains.knownAuthorizedDomains()
      await settle()
    }
    expect(getProjectConfig).toHaveBeenCalledTimes(1)
    seconds(11)
    await domains.getAuthorizedDomains()
    expect(getProjectConfig).toHaveBeenCalledTimes(2)
    // Still down: another 30 s.
    seconds(29)
    await domains.getAuthorizedDomains()
    expect(getProjectConfig).toHaveBeenCalledTimes(2)
    getProjectConfig.mockImplementation(() => up('good.com'))
    seconds(2)
    expect([...(await domains.getAuthorizedDomains())]).toEqual(['good.com'])
    expect(getProjectConfig).toHaveBeenCalledTimes(3)
  })

  it('keeps the last known list through an outage', async () => {
    getProjectConfig.mockImplementation(() => up('good.com'))
    await domains.getAuthorizedDomains()
    getProjectConfig.mockImplementation(down)
    seconds(301)
    expect([...(await domains.getAuthorizedDomains())]).toEqual(['good.com'])
    expect(getProjectConfig).toHaveBeenCalledTimes(2)
    for (let i = 0; i < 10; i++) {
      seconds(2)
      expect([...domains.knownAuthorizedDomains()]).toEqual(['good.com'])
      await settle()
    }
    expect(getProjectConfig).toHaveBeenCalledTimes(2)
  })
})
