import { afterEach, describe, expect, it, vi } from 'vitest'
import type * as configModule from '~/.server/config'
import type { Config } from '~/.server/config'
import { COOKIES, cookieName } from '~/.server/cookies'
import { deviceCookie, deviceIdFor } from './rate-limit'

const overrides = vi.hoisted(() => ({ value: {} as Partial<Config> }))
vi.mock('~/.server/config', async (importOriginal) => {
  const actual = await importOriginal<typeof configModule>()
  return { ...actual, getConfig: () => ({ ...actual.getConfig(), ...overrides.value }) }
})

const OLD_SECRET = 'old-secret-old-secret-old-secret-0000'
const NEW_SECRET = 'new-secret-new-secret-new-secret-1111'
const EMAIL = 'Owner@Example.com'

afterEach(() => {
  overrides.value = {}
  vi.useRealTimers()
})

/** The browser's request after it got `setCookie`. */
function requestWith(setCookie: string, name = cookieName(COOKIES.device)): Request {
  const value = setCookie.split(';')[0]!.slice(setCookie.indexOf('=') + 1)
  return new Request('http://localhost:3000/', { headers: { Cookie: `csrf=x; ${name}=${value}` } })
}

const valueOf = (setCookie: string) => decodeURIComponent(setCookie.split(';')[0]!.split('=')[1]!)

describe('device cookie', () => {
  it('is HttpOnly, SameSite=Lax, Path=/, long-lived, and names the account without the address', () => {
    const cookie = deviceCookie(EMAIL)
    expect(cookie).toMatch(/^device=[\w.-]+; Path=\/; SameSite=Lax; Max-Age=31536000; HttpOnly$/)
    expect(COOKIES.device.maxAge).toBe(365 * 24 * 3600)
    expect(cookie.toLowerCase()).not.toContain('owner')
    expect(cookie.toLowerCase()).not.toContain('example')
  })

  it('is __Host-device and Secure over https', () => {
    overrides.value = { publicOrigin: 'https://login.example.com' }
    const cookie = deviceCookie(EMAIL)
    expect(cookie).toMatch(/^__Host-device=.*; Secure$/)
    expect(deviceIdFor(requestWith(cookie, '__Host-device'), EMAIL)).not.toBeNull()
    // The plain name is not read over https.
    expect(deviceIdFor(requestWith(cookie, 'device'), EMAIL)).toBeNull()
  })

  it('is valid for its account (any spelling of the address), with a random id per cookie', () => {
    const first = deviceIdFor(requestWith(deviceCookie(EMAIL)), ' owner@example.COM ')
    const second = deviceIdFor(requestWith(deviceCookie(EMAIL)), EMAIL)
    expect(first).toMatch(/^[\w-]{22}$/)
    expect(second).toMatch(/^[\w-]{22}$/)
    expect(first).not.toBe(second)
  })

  it('is not valid for another account', () => {
    expect(deviceIdFor(requestWith(deviceCookie(EMAIL)), 'someone@example.com')).toBeNull()
  })

  it('is refused when tampered with, absent or expired', () => {
    const cookie = deviceCookie(EMAIL)
    const [id, expiry, account, mac] = valueOf(cookie).split('.') as [string, string, string, string]
    const forged = (value: string) => new Request('http://localhost/', { headers: { Cookie: `device=${value}` } })
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1)
    expect(deviceIdFor(forged([id, expiry, account, mac].join('.')), EMAIL)).toBe(id)
    expect(deviceIdFor(forged([flip(id), expiry, account, mac].join('.')), EMAIL)).toBeNull()
    expect(deviceIdFor(forged([id, String(Number(expiry) + 1), account, mac].join('.')), EMAIL)).toBeNull()
    expect(deviceIdFor(forged([id, expiry, flip(account), mac].join('.')), EMAIL)).toBeNull()
    expect(deviceIdFor(forged([id, expiry, account, flip(mac)].join('.')), EMAIL)).toBeNull()
    expect(deviceIdFor(forged([id, expiry, account, mac, 'x'].join('.')), EMAIL)).toBeNull()
    expect(deviceIdFor(forged(''), EMAIL)).toBeNull()
    expect(deviceIdFor(new Request('http://localhost/'), EMAIL)).toBeNull()
    vi.useFakeTimers({ now: Date.now() + (COOKIES.device.maxAge + 60) * 1000 })
    expect(deviceIdFor(requestWith(cookie), EMAIL)).toBeNull()
  })

  it('survives a secret rotation while the old secret is listed, not after', () => {
    overrides.value = { sessionSecrets: [OLD_SECRET] }
    const cookie = deviceCookie(EMAIL)
    const id = deviceIdFor(requestWith(cookie), EMAIL)
    expect(id).not.toBeNull()
    overrides.value = { sessionSecrets: [NEW_SECRET, OLD_SECRET] }
    expect(deviceIdFor(requestWith(cookie), EMAIL)).toBe(id)
    expect(deviceIdFor(requestWith(cookie), 'someone@example.com')).toBeNull()
    overrides.value = { sessionSecrets: [NEW_SECRET] }
    expect(deviceIdFor(requestWith(cookie), EMAIL)).toBeNull()
  })
})
