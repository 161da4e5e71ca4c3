import { createHmac, randomBytes } from 'node:crypto'

/**
 * RFC 6238 time-based one-time codes (HMAC-SHA1, 30-second steps, 6 digits), as authenticator apps
 * compute them: the loopback identity service (./mfa-identity.ts) checks them, tests type them.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
export const TOTP_PERIOD_SECONDS = 30
export const TOTP_DIGITS = 6

/** A new shared secret, in base32 as services hand it out (20 random bytes: 32 characters). */
export function randomTotpSecret(): string {
  const bytes = randomBytes(20)
  let bits = ''
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0')
  return (bits.match(/.{5}/g) ?? []).map((chunk) => ALPHABET[parseInt(chunk, 2)]).join('')
}

/** The bytes of a base32 secret; spaces (the groups of four shown to people) and case are ignored. */
function base32Bytes(secret: string): Buffer {
  let bits = ''
  for (const char of secret.replace(/[\s=]/g, '').toUpperCase()) {
    const value = ALPHABET.indexOf(char)
    if (value < 0) throw new Error('not a base32 secret')
    bits += value.toString(2).padStart(5, '0')
  }
  return Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => parseInt(byte, 2)))
}

/** The code for `secret` at `at` (milliseconds), `digits` long; the key may be given as raw bytes (RFC test vectors). */
export function totpCode(secret: string | Buffer, at = Date.now(), digits = TOTP_DIGITS): string {
  const key = typeof secret === 'string' ? base32Bytes(secret) : secret
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 1000 / TOTP_PERIOD_SECONDS)))
  const mac = createHmac('sha1', key).update(counter).digest()
  const offset = mac[mac.length - 1]! & 0x0f
  const value = mac.readUInt32BE(offset) & 0x7fffffff
  return String(value % 10 ** digits).padStart(digits, '0')
}

/** Whether `code` is the secret's code now, a step before, or a step after (clock drift). */
export function totpMatches(secret: string, code: string, at = Date.now()): boolean {
  return [-1, 0, 1].some((step) => totpCode(secret, at + step * TOTP_PERIOD_SECONDS * 1000) === code)
}
