import { describe, expect, it } from 'vitest'
import { creationOptions, postedCredential, relyingParty, requestOptions } from './passkey-options'

/** The identity service's passkey options, as the browser gets them, and the answer it posts back. */

const RP = relyingParty()
/** The service speaks standard base64; the browser's WebAuthn JSON wants base64url. */
const ID = '+/8A+w=='
const ID_URL = '-_8A-w'

describe('requestOptions', () => {
  it('names this relying party, keeps the service timeout and credentials, and asks for user verification by default', () => {
    const options = requestOptions({ rpId: RP, timeout: 30_000, allowCredentials: [{ id: ID, transports: ['usb'] }] }, 'c')
    expect(options).toEqual({
      challenge: 'c',
      rpId: RP,
      timeout: 30_000,
      userVerification: 'required',
      allowCredentials: [{ id: ID_URL, type: 'public-key', transports: ['usb'] }],
    })
    expect(requestOptions({ userVerification: 'preferred', allowCredentials: 'nonsense' }, 'c')).toMatchObject({
      timeout: 60_000,
      userVerification: 'preferred',
      allowCredentials: [],
    })
  })

  it('refuses options for another relying party', () => {
    expect(requestOptions({ rpId: 'evil.example' }, 'c')).toBeNull()
  })
})

describe('creationOptions', () => {
  const service = {
    rp: { name: 'Portal' },
    user: { id: ID, name: 'ada@example.com', displayName: 'Ada' },
    pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
    excludeCredentials: [{ id: ID }],
  }

  it('names this relying party, the user by a base64url id, and asks for a discoverable credential', () => {
    expect(creationOptions(service, 'c')).toEqual({
      challenge: 'c',
      rp: { id: RP, name: 'Portal' },
      user: { id: ID_URL, name: 'ada@example.com', displayName: 'Ada' },
      pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
      timeout: 60_000,
      attestation: 'none',
      excludeCredentials: [{ id: ID_URL, type: 'public-key' }],
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    })
  })

  it('refuses options for another relying party, or without a user or an algorithm', () => {
    expect(creationOptions({ ...service, rp: { id: 'evil.example' } }, 'c')).toBeNull()
    expect(creationOptions({ ...service, user: undefined }, 'c')).toBeNull()
    expect(creationOptions({ ...service, pubKeyCredParams: [] }, 'c')).toBeNull()
  })
})

describe('postedCredential', () => {
  const answer = { id: 'abc', rawId: 'abc', type: 'public-key', response: { clientDataJSON: 'e30', signature: 'c2ln' } }

  it('takes a well-formed WebAuthn answer', () => {
    expect(postedCredential(JSON.stringify(answer))).toEqual(answer)
  })

  it('takes nothing else: no text, too much, not JSON, another type, or a value that is not base64url', () => {
    expect(postedCredential(null)).toBeNull()
    expect(postedCredential(JSON.stringify({ ...answer, pad: 'x'.repeat(65_536) }))).toBeNull()
    expect(postedCredential('{')).toBeNull()
    expect(postedCredential(JSON.stringify({ ...answer, type: 'password' }))).toBeNull()
    expect(postedCredential(JSON.stringify({ ...answer, response: { clientDataJSON: 'e30=' } }))).toBeNull()
  })
})
