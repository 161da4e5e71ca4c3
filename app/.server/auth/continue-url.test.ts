import { describe, expect, it } from 'vitest'
import { getConfig } from '~/.server/config'
import { continueUrlFor, redirectFromContinueUrl } from './continue-url'

/** The continueUrl an emailed link carries, and the redirect read back from it. */

const ORIGIN = getConfig().publicOrigin

describe('continueUrlFor', () => {
  it('is the sign-in page on the public origin, with the redirect kept', () => {
    expect(continueUrlFor(null)).toBe(`${ORIGIN}/`)
    expect(continueUrlFor('')).toBe(`${ORIGIN}/`)
    expect(continueUrlFor('https://app.example/inbox?a=1&b=2')).toBe(
      `${ORIGIN}/?redirect=${encodeURIComponent('https://app.example/inbox?a=1&b=2')}`,
    )
  })
})

describe('redirectFromContinueUrl', () => {
  it('reads back the redirect a continueUrl of ours carries', () => {
    expect(redirectFromContinueUrl(continueUrlFor('https://app.example/inbox?a=1&b=2'))).toBe('https://app.example/inbox?a=1&b=2')
    expect(redirectFromContinueUrl(continueUrlFor(null))).toBeNull()
  })

  it("takes nothing from another origin's URL, a malformed one or none", () => {
    expect(redirectFromContinueUrl('https://evil.example/?redirect=https%3A%2F%2Fapp.example%2F')).toBeNull()
    expect(redirectFromContinueUrl(`${ORIGIN.replace('http:', 'https:')}/?redirect=x`)).toBeNull()
    expect(redirectFromContinueUrl('not a url')).toBeNull()
    expect(redirectFromContinueUrl(null)).toBeNull()
    expect(redirectFromContinueUrl('')).toBeNull()
  })
})
