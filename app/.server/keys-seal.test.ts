import { afterEach, describe, expect, it, vi } from 'vitest'
import type * as configModule from '~/.server/config'
import type { Config } from '~/.server/config'
import { openValue, sealValue, sign, signedBy, signingKeys } from './keys'

const overrides = vi.hoisted(() => ({ value: {} as Partial<Config> }))
vi.mock('~/.server/config', async (importOriginal) => {
  const actual = await importOriginal<typeof configModule>()
  return { ...actual, getConfig: () => ({ ...actual.getConfig(), ...overrides.value }) }
})

const OLD_SECRET = 'old-secret-old-secret-old-secret-0000'
const NEW_SECRET = 'new-secret-new-secret-new-secret-1111'
const BROWSER = 'random-of-this-browser.its-mac'
const OTHER_BROWSER = 'random-of-another-browser.its-mac'

afterEach(() => {
  overrides.value = {}
  vi.useRealTimers()
})

describe('sealValue / openValue', () => {
  const secret = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.signature'

  it('gives back the value in the browser it was sealed for, and nothing of it can be read in the sealed form', () => {
    const sealed = sealValue('recent-login', secret, BROWSER, 300)
    expect(openValue('recent-login', sealed, BROWSER)).toBe(secret)
    expect(sealed).not.toContain('eyJ')
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toContain('eyJ')
    // A fresh IV each time: the same value never looks the same twice.
    expect(sealValue('recent-login', secret, BROWSER, 300)).not.toBe(sealed)
  })

  it('refuses it in another browser, or with no binding', () => {
    const sealed = sealValue('reset-code', secret, BROWSER, 300)
    expect(openValue('reset-code', sealed, OTHER_BROWSER)).toBeNull()
    expect(openValue('reset-code', sealed, null)).toBeNull()
  })

  it('refuses it under another purpose', () => {
    const sealed = sealValue('recent-login', secret, BROWSER, 300)
    expect(openValue('reset-code', sealed, BROWSER)).toBeNull()
  })

  it('refuses an altered byte, a value too short to be one, and none', () => {
    const raw = Buffer.from(sealValue('recent-login', secret, BROWSER, 300), 'base64url')
    // In the IV, the tag, the first and last bytes of the ciphertext.
    for (const at of [0, 12, 28, raw.length - 1]) {
      const altered = Buffer.from(raw)
      altered[at] = altered[at]! ^ 1
      expect(openValue('recent-login', altered.toString('base64url'), BROWSER)).toBeNull()
    }
    expect(openValue('recent-login', raw.subarray(0, 28).toString('base64url'), BROWSER)).toBeNull()
    expect(openValue('recent-login', '', BROWSER)).toBeNull()
    expect(openValue('recent-login', null, BROWSER)).toBeNull()
  })

  it('opens it only as it was written: another spelling of the same bytes is refused', () => {
    // The last character of an unpadded base64url string may carry bits that decode to nothing.
    const sealed = Array.from({ length: 8 }, (_, i) => sealValue('recent-login', `${secret}${'x'.repeat(i)}`, BROWSER, 300)).find(
      (value) => value.length % 4 !== 0,
    )!
    const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.indexOf(sealed.at(-1)!)
    const respelled = `${sealed.slice(0, -1)}${'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[last ^ 1]}`
    expect(Buffer.from(respelled, 'base64url')).toEqual(Buffer.from(sealed, 'base64url'))
    expect(openValue('recent-login', sealed, BROWSER)).not.toBeNull()
    expect(openValue('recent-login', respelled, BROWSER)).toBeNull()
  })

  it('refuses it once expired', () => {
    const sealed = sealValue('mfa-pending', 'x', BROWSER, 600)
    vi.useFakeTimers({ now: Date.now() + 599_000 })
    expect(openValue('mfa-pending', sealed, BROWSER)).toBe('x')
    vi.setSystemTime(Date.now() + 2_000)
    expect(openValue('mfa-pending', sealed, BROWSER)).toBeNull()
  })

  it('opens what an older secret sealed while it is listed, not after', () => {
    overrides.value = { sessionSecrets: [OLD_SECRET] }
    const sealed = sealValue('action-code', secret, BROWSER, 300)
    overrides.value = { sessionSecrets: [NEW_SECRET, OLD_SECRET] }
    expect(openValue('action-code', sealed, BROWSER)).toBe(secret)
    // The new secret seals from now on.
    overrides.value = { sessionSecrets: [NEW_SECRET] }
    expect(openValue('action-code', sealed, BROWSER)).toBeNull()
    expect(openValue('action-code', sealValue('action-code', secret, BROWSER, 300), BROWSER)).toBe(secret)
  })
})

describe('sign / signedBy', () => {
  it('names the key that signed, under any listed secret, and refuses other data, purposes or macs', () => {
    overrides.value = { sessionSecrets: [OLD_SECRET] }
    const mac = sign('csrf', 'data')
    expect(mac).toMatch(/^[\w-]{43}$/)
    overrides.value = { sessionSecrets: [NEW_SECRET, OLD_SECRET] }
    expect(signedBy('csrf', 'data', mac)).toEqual(signingKeys('csrf')[1])
    expect(signedBy('csrf', 'data', sign('csrf', 'data'))).toEqual(signingKeys('csrf')[0])
    expect(signedBy('csrf', 'other', mac)).toBeNull()
    expect(signedBy('device', 'data', mac)).toBeNull()
    expect(signedBy('csrf', 'data', `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`)).toBeNull()
    expect(signedBy('csrf', 'data', mac.slice(0, -1))).toBeNull()
    overrides.value = { sessionSecrets: [NEW_SECRET] }
    expect(signedBy('csrf', 'data', mac)).toBeNull()
  })
})
