import { describe, expect, it } from 'vitest'
import { decryptValue, encryptValue } from './cookie-format'

describe('encryptValue / decryptValue', () => {
  const secret = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.signature'

  it('gives back the value, and nothing of it can be read in the encrypted form', () => {
    const encrypted = encryptValue('recent-login', secret)
    expect(decryptValue('recent-login', encrypted)).toBe(secret)
    expect(encrypted).not.toContain('eyJ')
    expect(Buffer.from(encrypted, 'base64url').toString('latin1')).not.toContain('eyJ')
    // A fresh IV each time: the same value never looks the same twice.
    expect(encryptValue('recent-login', secret)).not.toBe(encrypted)
  })

  it('refuses another purpose, an altered byte and a value too short to be one', () => {
    const encrypted = encryptValue('recent-login', secret)
    expect(decryptValue('reset-code', encrypted)).toBeNull()
    const raw = Buffer.from(encrypted, 'base64url')
    for (const at of [0, 12, 28, raw.length - 1]) {
      const altered = Buffer.from(raw)
      altered[at] = altered[at]! ^ 1
      expect(decryptValue('recent-login', altered.toString('base64url'))).toBeNull()
    }
    expect(decryptValue('recent-login', raw.subarray(0, 27).toString('base64url'))).toBeNull()
    expect(decryptValue('recent-login', '')).toBeNull()
  })
})
