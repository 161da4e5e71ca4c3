import { describe, expect, it } from 'vitest'
import { scrub } from './scrub'

describe('scrub', () => {
  it('redacts secrets under any key, at any depth', () => {
    const event = {
      request: {
        url: 'https://login.example.com/new-password?oobCode=abc123&lang=fr',
        cookies: { session: 'eyJhbGci', csrf: 'x.y' },
        headers: { Authorization: 'Bearer eyJ', 'User-Agent': 'Chromium' },
        data: { email: 'a@example.com', password: 'hunter2', newPassword: 'hunter3' },
      },
      extra: { nested: [{ idToken: 'tok', refreshToken: 'ref', note: 'keep me' }] },
    }
    const text = JSON.stringify(scrub(event))
    for (const secret of ['abc123', 'eyJhbGci', 'x.y', 'Bearer eyJ', 'hunter2', 'hunter3', '"tok"', '"ref"']) {
      expect(text).not.toContain(secret)
    }
    expect(text).toContain('keep me')
    expect(text).toContain('lang=fr')
    expect(text).toContain('Chromium')
  })

  it('redacts second-factor codes and pending credentials (ADR 022)', () => {
    const event = {
      request: { data: { code: '123456', intent: 'verify' } },
      extra: { mfaPendingCredential: 'PENDING', sessionInfo: 'SMS-SESSION', verificationCode: '654321' },
    }
    const text = JSON.stringify(scrub(event))
    for (const secret of ['123456', 'PENDING', 'SMS-SESSION', '654321']) expect(text).not.toContain(secret)
    expect(text).toContain('verify')
  })

  it('redacts secret query parameters inside strings', () => {
    expect(scrub('GET /action?mode=resetPassword&oobCode=SECRET&apiKey=KEY')).toBe(
      'GET /action?mode=resetPassword&oobCode=[redacted]&apiKey=[redacted]',
    )
  })

  it('redacts the account address a link carries (the forgot-password link follows what was typed)', () => {
    expect(scrub('https://portal/forgot-password?email=camille%40example.fr&lang=fr')).toBe(
      'https://portal/forgot-password?email=[redacted]&lang=fr',
    )
  })

  it('leaves other values alone', () => {
    expect(scrub({ a: 1, b: null, c: ['x'] })).toEqual({ a: 1, b: null, c: ['x'] })
  })
})
