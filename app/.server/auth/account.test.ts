import { describe, expect, it } from 'vitest'
import { accountPath } from './account'

describe('accountPath: where "Confirm it\'s you" returns', () => {
  it('keeps an account page, with its query', () => {
    expect(accountPath('/account')).toBe('/account')
    expect(accountPath('/account/password')).toBe('/account/password')
    expect(accountPath('/account/email?x=1')).toBe('/account/email?x=1')
  })

  it('sends anything else to /account: other pages, other sites, look-alikes, nothing', () => {
    for (const next of [
      null,
      '',
      '/',
      '/logout',
      '/accounts',
      '/account-delete',
      '/account/../logout',
      '//evil.example/account',
      '/\\evil.example/account',
      'https://evil.example/account',
      'javascript:alert(1)',
    ]) {
      expect(accountPath(next), String(next)).toBe('/account')
    }
  })
})
