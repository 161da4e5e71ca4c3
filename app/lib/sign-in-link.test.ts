import { describe, expect, it } from 'vitest'
import { pageAddress, signInLink } from './sign-in-link'

describe('signInLink', () => {
  it('is the bare sign-in page without a redirect', () => {
    expect(signInLink(null)).toBe('/')
    expect(signInLink(undefined)).toBe('/')
  })

  it('carries the redirect, encoded, after the flow’s own parameters', () => {
    expect(signInLink('/account?tab=a&b=1')).toBe('/?redirect=%2Faccount%3Ftab%3Da%26b%3D1')
    expect(signInLink('https://app.example/x', { mfaError: 'expired' })).toBe(
      '/?mfaError=expired&redirect=https%3A%2F%2Fapp.example%2Fx',
    )
    expect(signInLink(null, { emailLink: 'sent' })).toBe('/?emailLink=sent')
  })

  it('keeps an empty redirect, which the page reports as missing', () => {
    expect(signInLink('')).toBe('/?redirect=')
  })
})

describe('pageAddress', () => {
  it("is the page's own address, a client navigation's data request included", () => {
    expect(pageAddress('http://x/account/email?next=1')).toBe('/account/email?next=1')
    expect(pageAddress('http://x/account.data')).toBe('/account')
    expect(pageAddress('http://x/account/email.data?_routes=routes%2Faccount.email&a=1')).toBe('/account/email?a=1')
    expect(pageAddress('http://x/_.data')).toBe('/')
  })
})
