import { describe, expect, it } from 'vitest'
import { createIdentityClient } from './index'
import { requestTarget } from './transport'

describe('requestTarget', () => {
  const production = { apiKey: 'AIza-key/+=', emulatorOrigin: null }
  const emulator = { apiKey: 'demo-api-key', emulatorOrigin: 'http://127.0.0.1:9099' }

  it('sends identity calls to identitytoolkit.googleapis.com with the key as a query parameter', () => {
    expect(requestTarget(production, '/v1/accounts:signInWithPassword')).toEqual({
      origin: 'https://identitytoolkit.googleapis.com',
      path: '/v1/accounts:signInWithPassword?key=AIza-key%2F%2B%3D',
    })
  })

  it('puts the other query parameters before the key', () => {
    expect(
      requestTarget(production, '/v2/recaptchaConfig', {
        clientType: 'CLIENT_TYPE_WEB',
        version: 'RECAPTCHA_ENTERPRISE',
      }).path,
    ).toBe('/v2/recaptchaConfig?clientType=CLIENT_TYPE_WEB&version=RECAPTCHA_ENTERPRISE&key=AIza-key%2F%2B%3D')
  })

  it('with an emulator, sends everything to it with the host name as the first path segment', () => {
    expect(requestTarget(emulator, '/v1/projects')).toEqual({
      origin: 'http://127.0.0.1:9099',
      path: '/identitytoolkit.googleapis.com/v1/projects?key=demo-api-key',
    })
  })
})

describe('createIdentityClient', () => {
  it('has one function per identity call, and closes without having opened anything', async () => {
    const client = createIdentityClient({ apiKey: 'k', emulatorOrigin: null, tenantId: null, projectId: 'p', timeoutMs: 1_000 })
    expect(Object.keys(client).sort()).toEqual([
      'bounded',
      'changePassword',
      'checkActionCode',
      'close',
      'createAuthUri',
      'deleteAccount',
      'deletePasskey',
      'finalizeEnrollment',
      'finalizeMfaSignIn',
      'finalizePasskeyEnrollment',
      'finalizePasskeySignIn',
      'getMfaConfig',
      'getProjectConfig',
      'getRecaptchaConfig',
      'passkeysOf',
      'resetPassword',
      'sendOobCode',
      'signInWithEmailLink',
      'signInWithIdp',
      'signInWithPassword',
      'signUp',
      'startMfaSignIn',
      'startPasskeyEnrollment',
      'startPasskeySignIn',
      'startPhoneEnrollment',
      'startTotpEnrollment',
      'update',
      'withdrawMfa',
    ])
    await expect(client.close()).resolves.toBeUndefined()
  })
})
