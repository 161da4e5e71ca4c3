import { hkdfSync } from 'node:crypto'
import { getConfig } from '~/.server/config'

// HKDF-SHA256 per purpose, so no two purposes share a key (see ADR 034). The identifier
// key signs nothing, so it can stay pinned through a rotation of SESSION_SECRET.
export type SigningPurpose = 'csrf' | 'flow' | 'device'
export type Purpose = SigningPurpose | 'identifier'

const derived = new Map<string, Buffer>()

export function deriveKey(secret: string, purpose: Purpose): Buffer {
  const id = `${purpose}\n${secret}`
  let key = derived.get(id)
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, '', `auth-portal ${purpose} v1`, 32))
    derived.set(id, key)
  }
  return key
}

export function signingKeys(purpose: SigningPurpose): [Buffer, ...Buffer[]] {
  const [first, ...rest] = getConfig().sessionSecrets
  if (first === undefined) throw new Error('no SESSION_SECRET configured')
  return [deriveKey(first, purpose), ...rest.map((secret) => deriveKey(secret, purpose))]
}

export function identifierKey(): Buffer {
  const { identifierHashSecret, sessionSecrets } = getConfig()
  const secret = identifierHashSecret ?? sessionSecrets[0]
  if (secret === undefined) throw new Error('no SESSION_SECRET configured')
  return deriveKey(secret, 'identifier')
}
