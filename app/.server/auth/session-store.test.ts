import { describe, expect, it } from 'vitest'
import { deviceOf } from './session-store'

describe('deviceOf', () => {
  it.each([
    ['Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0', { browser: 'Firefox 153', os: 'Linux' }],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 19_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/19.1 Mobile/15E148 Safari/604.1',
      { browser: 'Safari 19', os: 'iOS' },
    ],
    ['Lynx/2.9.0dev.12 libwww-FM/2.14 SSL-MM/1.4.1 GNUTLS/3.7.9', { browser: 'Lynx 2', os: null }],
    ['', { browser: null, os: null }],
  ])('names %j as a person would', (userAgent, device) => {
    expect(deviceOf(userAgent)).toEqual(device)
  })
})
