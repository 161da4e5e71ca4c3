import { describe, expect, it } from 'vitest'
import { parseAuthDomain } from './auth-domain'

describe('parseAuthDomain', () => {
  it.each([
    ['my-project.firebaseapp.com', 'my-project.firebaseapp.com'],
    ['auth.example.com', 'auth.example.com'],
    ['Auth.Example.COM', 'auth.example.com'],
    ['localhost', 'localhost'],
    ['localhost:9099', 'localhost:9099'],
    ['auth.example.com:443', 'auth.example.com:443'],
    ['127.0.0.1:5000', '127.0.0.1:5000'],
    [`${'a'.repeat(63)}.example.com`, `${'a'.repeat(63)}.example.com`],
  ])('accepts %j', (value, expected) => {
    expect(parseAuthDomain(value)).toBe(expected)
  })

  it.each([
    null,
    '',
    'https://auth.example.com',
    'auth.example.com/',
    'auth.example.com/__/auth',
    'user@auth.example.com',
    'user:pass@auth.example.com',
    'auth.example.com?x=1',
    'auth.example.com#x',
    'auth example.com',
    ' auth.example.com',
    'auth.example.com ',
    'auth.example.com\n',
    'auth.exa\u0000mple.com',
    'auth.\u0007example.com',
    'auth..example.com',
    '.example.com',
    'example.com.',
    '-auth.example.com',
    'auth-.example.com',
    'auth_x.example.com',
    'bücher.example',
    'auth.example.com:',
    'auth.example.com:0',
    'auth.example.com:080',
    'auth.example.com:65536',
    'auth.example.com:1:2',
    '[::1]:9099',
    `${'a'.repeat(64)}.example.com`,
    `${'abcdefghi.'.repeat(26)}com`,
  ])('rejects %j', (value) => {
    expect(parseAuthDomain(value)).toBeNull()
  })
})
