import { describe, expect, it } from 'vitest'
import { parseConfig, parseEmulatorHost } from '../../server/config'

describe('configuration', () => {
  it('has embedded defaults for local use', () => {
    const result = parseConfig({})
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.config).toMatchObject({ port: 3000, host: '127.0.0.1', platform: 'local', trustProxy: 0 })
    expect(result.config.publicOrigin).toBe('http://localhost:3000')
    expect(result.config.identity.timeoutMs).toBe(30_000)
  })

  it('requires SESSION_SECRET outside local and test', () => {
    const result = parseConfig({ PLATFORM: 'production', IDENTITY_API_KEY: 'abc' })
    expect(result).toEqual({ ok: false, errors: [expect.stringContaining('SESSION_SECRET')] })
  })

  it('rejects weak session secrets in production', () => {
    const result = parseConfig({ PLATFORM: 'production', IDENTITY_API_KEY: 'abc', SESSION_SECRET: 'short' })
    expect(result.ok).toBe(false)
  })

  it('accepts rotated secrets, newest first', () => {
    const secret = 'x'.repeat(32)
    const result = parseConfig({ PLATFORM: 'staging', IDENTITY_API_KEY: 'k', SESSION_SECRET: `${secret}1, ${secret}2` })
    expect(result.ok && result.config.sessionSecrets).toEqual([`${secret}1`, `${secret}2`])
  })

  it('rejects an API key with a colon as auth/invalid-api-key', () => {
    const result = parseConfig({ IDENTITY_API_KEY: 'a:b' })
    expect(result).toEqual({ ok: false, errors: [expect.stringContaining('auth/invalid-api-key')] })
  })

  it('lists one line per problem', () => {
    const result = parseConfig({ PORT: 'abc', PLATFORM: 'moon', TRUST_PROXY: '-1' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.errors).toHaveLength(3)
    expect(result.errors.join('\n')).toMatch(/PORT[\s\S]*PLATFORM[\s\S]*TRUST_PROXY/)
  })

  it('treats an empty variable as unset', () => {
    expect(parseConfig({ PORT: '' }).ok).toBe(true)
  })

  it.each([
    ['127.0.0.1:9099', 'http://127.0.0.1:9099'],
    ['http://localhost:9099', 'http://localhost:9099'],
    ['https://auth.example.com', 'https://auth.example.com'],
    ['ftp://localhost:9099', null],
    ['javascript:alert(1)', null],
    ['http://localhost:9099/path', null],
  ])('reads the emulator host %s as %s', (input, expected) => {
    expect(parseEmulatorHost(input)).toBe(expected)
  })

  it('rejects an emulator URL that does not start with http or https', () => {
    const result = parseConfig({ FIREBASE_AUTH_EMULATOR_HOST: 'ftp://localhost:1' })
    expect(result).toEqual({ ok: false, errors: [expect.stringContaining('FIREBASE_AUTH_EMULATOR_HOST')] })
  })
})
