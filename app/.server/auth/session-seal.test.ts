import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { SESSION_ID, keyOf, open, seal } from './session-store'

const id = () => randomBytes(32).toString('base64url')
const secrets = { identity: 'identity-session', recent: 'id-token', recentUntil: 1_795_000_000_000 }

describe('the session seal', () => {
  it('opens with the id that sealed it, and with no other', () => {
    const [mine, other] = [id(), id()]
    expect(SESSION_ID.test(mine)).toBe(true)
    const sealed = seal(mine, secrets)
    expect(open(mine, sealed)).toEqual(secrets)
    expect(open(other, sealed)).toBeNull()
    // Neither the id nor what is sealed can be read from the seal or the key.
    expect(sealed).not.toContain('identity-session')
    expect(keyOf(mine)).not.toContain(mine)
  })

  it('refuses a seal altered anywhere, or cut short', () => {
    const mine = id()
    const raw = Buffer.from(seal(mine, secrets), 'base64url')
    const flip = (at: number) => {
      const altered = Buffer.from(raw)
      altered[at] = altered[at]! ^ 1
      return altered.toString('base64url')
    }
    for (const forged of [flip(0), flip(12), flip(28), flip(raw.length - 1), raw.subarray(0, raw.length - 1).toString('base64url'), '']) {
      expect(open(mine, forged)).toBeNull()
    }
  })
})
