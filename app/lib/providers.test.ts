import { describe, expect, it } from 'vitest'
import { providerName } from './providers'

describe('providerName', () => {
  it('names a well-known provider, and the configured name wins', () => {
    expect(providerName('google.com')).toBe('Google')
    expect(providerName('google.com', 'Acme')).toBe('Acme')
  })
  it('an organisation’s own provider has only the name it is given', () => {
    expect(providerName('oidc.acme')).toBeNull()
    expect(providerName('saml.acme', 'Acme')).toBe('Acme')
    expect(providerName('toString')).toBeNull()
  })
})
