import { describe, expect, it } from 'vitest'
import { getLocale, localeFromAcceptLanguage } from './i18n'

describe('the page language', () => {
  it.each([
    [null, null],
    ['', null],
    ['en', 'en'],
    ['en-US,en;q=0.9', 'en'],
    ['fr-CA', 'fr'],
    ['de', null],
    ['de;q=1, fr;q=0.4, en;q=0.8', 'en'],
    ['de, en;q=0.1', 'en'],
    ['en;q=0, fr;q=0.1', 'fr'],
    ['*', null],
    ['EN-gb;Q=0.5, xx', 'en'],
    ['fr;q=0.5, en;q=0.5', 'fr'],
    ['en;q=abc', 'en'],
  ])('Accept-Language %j gives %j', (header, expected) => {
    expect(localeFromAcceptLanguage(header)).toBe(expected)
  })

  it('takes the cookie first, then the header, then French', () => {
    const request = (headers: Record<string, string>) => new Request('http://localhost/', { headers })
    expect(getLocale(request({ Cookie: 'i18n_redirected=fr', 'Accept-Language': 'en' }))).toBe('fr')
    expect(getLocale(request({ Cookie: 'i18n_redirected=de', 'Accept-Language': 'en' }))).toBe('en')
    expect(getLocale(request({}))).toBe('fr')
  })
})
