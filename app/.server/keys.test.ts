import { hkdfSync } from 'node:crypto'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type * as configModule from '~/.server/config'
import type { Config } from '~/.server/config'
import { hashEmail } from '~/.server/ops/logger'
import { deriveKey, identifierKey, signingKeys, type Purpose } from './keys'

const overrides = vi.hoisted(() => ({ value: {} as Partial<Config> }))
vi.mock('~/.server/config', async (importOriginal) => {
  const actual = await importOriginal<typeof configModule>()
  return { ...actual, getConfig: () => ({ ...actual.getConfig(), ...overrides.value }) }
})

const OLD = 'old-secret-old-secret-old-secret-0000'
const NEW = 'new-secret-new-secret-new-secret-1111'
const PURPOSES: Purpose[] = ['csrf', 'flow', 'device', 'identifier']

afterEach(() => {
  overrides.value = {}
})

const hex = (key: Buffer) => key.toString('hex')

describe('deriveKey', () => {
  it('is HKDF-SHA256 of the secret with the purpose in info: 32 bytes, the same on every call', () => {
    const expected = Buffer.from(hkdfSync('sha256', OLD, '', 'auth-portal csrf v1', 32))
    expect(hex(deriveKey(OLD, 'csrf'))).toBe(hex(expected))
    expect(deriveKey(OLD, 'csrf')).toHaveLength(32)
    expect(hex(deriveKey(OLD, 'csrf'))).toBe(hex(deriveKey(`${OLD}`, 'csrf')))
  })

  it('gives every purpose its own key, none of them the secret itself', () => {
    const keys = PURPOSES.map((purpose) => hex(deriveKey(OLD, purpose)))
    expect(new Set(keys).size).toBe(PURPOSES.length)
    expect(keys).not.toContain(Buffer.from(OLD).toString('hex'))
    expect(hex(deriveKey(NEW, 'csrf'))).not.toBe(hex(deriveKey(OLD, 'csrf')))
  })
})

describe('signingKeys', () => {
  it('follows SESSION_SECRET: the first signs, every one verifies', () => {
    overrides.value = { sessionSecrets: [NEW, OLD] }
    expect(signingKeys('flow').map(hex)).toEqual([hex(deriveKey(NEW, 'flow')), hex(deriveKey(OLD, 'flow'))])
    overrides.value = { sessionSecrets: [OLD, NEW] }
    expect(signingKeys('flow').map(hex)).toEqual([hex(deriveKey(OLD, 'flow')), hex(deriveKey(NEW, 'flow'))])
  })
})

describe('identifierKey', () => {
  it('is the first secret’s by default, and pinning IDENTIFIER_HASH_SECRET to that secret changes nothing', () => {
    overrides.value = { sessionSecrets: [OLD], identifierHashSecret: null }
    const before = hex(identifierKey())
    expect(before).toBe(hex(deriveKey(OLD, 'identifier')))
    overrides.value = { sessionSecrets: [OLD], identifierHashSecret: OLD }
    expect(hex(identifierKey())).toBe(before)
  })

  it('stays the same through every step of a rotation once pinned, whatever the order of the list', () => {
    overrides.value = { sessionSecrets: [OLD], identifierHashSecret: null }
    const hash = hashEmail('Owner@Example.com')
    for (const sessionSecrets of [[OLD, NEW], [NEW, OLD], [NEW]]) {
      overrides.value = { sessionSecrets, identifierHashSecret: OLD }
      expect(hashEmail('owner@example.com'), sessionSecrets.join()).toBe(hash)
    }
  })

  it('follows the first secret when not pinned, so a rotation changes it once, at the switch', () => {
    overrides.value = { sessionSecrets: [OLD, NEW], identifierHashSecret: null }
    const hash = hashEmail('owner@example.com')
    overrides.value = { sessionSecrets: [NEW, OLD], identifierHashSecret: null }
    expect(hashEmail('owner@example.com')).not.toBe(hash)
  })
})
