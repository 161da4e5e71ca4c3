import { describe, expect, it } from 'vitest'
import { factorKindsOf } from './second-factor-kinds'

describe('factorKindsOf', () => {
  const totp = { state: 'ENABLED', totpProviderConfig: { adjacentIntervals: 5 } }

  it('offers SMS while multi-factor is on with PHONE_SMS, an app while its TOTP config is on', () => {
    expect(factorKindsOf({ state: 'ENABLED', enabledProviders: ['PHONE_SMS'] }, false)).toEqual(['phone'])
    expect(factorKindsOf({ state: 'MANDATORY', enabledProviders: ['PHONE_SMS'], providerConfigs: [totp] }, false)).toEqual([
      'phone',
      'totp',
    ])
    expect(factorKindsOf({ state: 'DISABLED', enabledProviders: ['PHONE_SMS'], providerConfigs: [totp] }, false)).toEqual(['totp'])
    expect(factorKindsOf({ state: 'ENABLED', providerConfigs: [{ ...totp, state: 'DISABLED' }] }, false)).toEqual([])
  })

  it('offers nothing for a project without settings, and SMS alone on the emulator, which has no TOTP', () => {
    expect(factorKindsOf(null, false)).toEqual([])
    expect(factorKindsOf({}, false)).toEqual([])
    expect(factorKindsOf(null, true)).toEqual(['phone'])
    // Settings the emulator's stand-ins give are read as they are.
    expect(factorKindsOf({ state: 'ENABLED', enabledProviders: ['PHONE_SMS'], providerConfigs: [totp] }, true)).toEqual([
      'phone',
      'totp',
    ])
  })
})
