import { hkdfSync } from 'node:crypto'
import { getConfig } from '~/.server/config'

/**
 * The portal's keys, one per purpose, derived with HKDF-SHA256 (the purpose in `info`) from the
 * configured secrets, so that no two purposes share a key (ADR 034). Nothing else reads the secrets.
 *
 * - Secret keys (signing CSRF tokens and device cookies, encrypting flow cookies): one per
 *   SESSION_SECRET, in its order. The first signs or encrypts; every one verifies or decrypts
 *   (rotation: docs/operations.md).
 * - The identifier key (keyed hashes of addresses and phone numbers: per-account rate-limit keys,
 *   `emailHash` in logs): from IDENTIFIER_HASH_SECRET, or else from the first SESSION_SECRET. It
 *   signs nothing, so it need not follow the signing secrets: pinned, it stays the same through a
 *   rotation, and pinning it to the secret in use gives the very key in use.
 */
export type SigningPurpose = 'csrf' | 'flow' | 'device'
export type Purpose = SigningPurpose | 'identifier'

const derived = new Map<string, Buffer>()

/** The 32-byte key for `purpose` from `secret`: the same for the same pair, on every replica. */
export function deriveKey(secret: string, purpose: Purpose): Buffer {
  const id = `${purpose}\n${secret}`
  let key = derived.get(id)
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, '', `auth-portal ${purpose} v1`, 32))
    derived.set(id, key)
  }
  return key
}

/** The keys of `purpose`, one per SESSION_SECRET in its order: the first signs (encrypts), every one verifies (decrypts). */
export function signingKeys(purpose: SigningPurpose): [Buffer, ...Buffer[]] {
  const [first, ...rest] = getConfig().sessionSecrets
  if (first === undefined) throw new Error('no SESSION_SECRET configured')
  return [deriveKey(first, purpose), ...rest.map((secret) => deriveKey(secret, purpose))]
}

/** The key of the keyed hashes of identifiers; unchanged by a rotation while IDENTIFIER_HASH_SECRET is set. */
export function identifierKey(): Buffer {
  const { identifierHashSecret, sessionSecrets } = getConfig()
  const secret = identifierHashSecret ?? sessionSecrets[0]
  if (secret === undefined) throw new Error('no SESSION_SECRET configured')
  return deriveKey(secret, 'identifier')
}
