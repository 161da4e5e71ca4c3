import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'
import { getConfig } from '~/.server/config'

// The keys derived from SESSION_SECRET, and signing and sealing with them.
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

/** Checked against every SESSION_SECRET's key, so secrets can rotate . */
export function sign(purpose: SigningPurpose, data: string, key: Buffer = signingKeys(purpose)[0]): string {
  return createHmac('sha256', key).update(data).digest('base64url')
}

/** The length of what is compared is no secret. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

export function signedBy(purpose: SigningPurpose, data: string, mac: string): Buffer | null {
  // No early exit, so the time taken does not tell which secret matched.
  return signingKeys(purpose).reduce<Buffer | null>(
    (found, key) => (safeEqual(mac, sign(purpose, data, key)) ? key : found),
    null,
  )
}

// The browser's binding is additional data: a value sealed for one browser is refused
// in any other, so an attacker cannot plant their own pending sign-in in a victim's
// browser (see ADR 017). Format: base64url of IV (12 bytes), tag (16), ciphertext.
const IV = 12
const TAG = 16

function additionalData(purpose: string, binding: string): Buffer {
  return Buffer.from(`${purpose}\n${binding}`, 'utf8')
}

export function sealValue(purpose: string, value: string, binding: string, maxAge: number): string {
  const iv = randomBytes(IV)
  const cipher = createCipheriv('aes-256-gcm', signingKeys('flow')[0], iv).setAAD(additionalData(purpose, binding))
  const plain = `${Math.floor(Date.now() / 1000) + maxAge}.${value}`
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
}

function decrypt(raw: Buffer, aad: Buffer, key: Buffer): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV)).setAAD(aad)
    decipher.setAuthTag(raw.subarray(IV, IV + TAG))
    return Buffer.concat([decipher.update(raw.subarray(IV + TAG)), decipher.final()]).toString('utf8')
  } catch {
    return null
  }
}

export function openValue(purpose: string, sealed: string | null, binding: string | null): string | null {
  if (!sealed || !binding) return null
  const raw = Buffer.from(sealed, 'base64url')
  // Only as written: the decoder ignores stray bits in the last character, so one value has several spellings.
  if (raw.length <= IV + TAG || raw.toString('base64url') !== sealed) return null
  const aad = additionalData(purpose, binding)
  const plain = signingKeys('flow').reduce<string | null>((found, key) => decrypt(raw, aad, key) ?? found, null)
  const dot = plain?.indexOf('.') ?? -1
  if (plain === null || dot <= 0 || !(Number(plain.slice(0, dot)) > Date.now() / 1000)) return null
  return plain.slice(dot + 1)
}
