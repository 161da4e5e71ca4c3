import { afterEach, describe, expect, it, vi } from 'vitest'
import type { CredentialJson } from '~/.server/identity'
import { cookieHeader } from '../../../tests/support/cookie-jar'
import { CHALLENGE_SECONDS, checkAnswer, issueChallenge } from './passkey-challenge'

/** A passkey answer is taken only for this browser's challenge, its ceremony, our origin, once, within 5 minutes. */

const ORIGIN = 'http://localhost:3000'
const SERVICE_CHALLENGE = Buffer.from('the service challenge').toString('base64')

function issued(ceremony: 'get' | 'create' = 'get') {
  const { challenge, setCookies } = issueChallenge(new Request(`${ORIGIN}/`), SERVICE_CHALLENGE, ceremony)
  return { challenge, request: new Request(`${ORIGIN}/passkey`, { method: 'POST', headers: { Cookie: cookieHeader(setCookies) } }) }
}
const answer = (clientData: object | string): CredentialJson =>
  ({
    id: 'cred-1',
    response: {
      clientDataJSON: Buffer.from(typeof clientData === 'string' ? clientData : JSON.stringify(clientData)).toString('base64url'),
    },
  }) as unknown as CredentialJson

afterEach(() => vi.useRealTimers())

describe('checkAnswer', () => {
  it("takes the browser's answer to this browser's challenge, and spends the challenge", async () => {
    const { challenge, request } = issued('get')
    expect(challenge).toBe(Buffer.from('the service challenge').toString('base64url'))
    const spend = vi.fn(async () => true)
    const check = checkAnswer(request, answer({ type: 'webauthn.get', challenge, origin: ORIGIN }), { ceremony: 'get', origin: ORIGIN }, spend)
    expect(await check).toEqual({ ok: true })
    expect(spend).toHaveBeenCalledWith(expect.stringMatching(/^[\w-]{22}$/))
  })

  it('refuses an answer already spent (a replay)', async () => {
    const { challenge, request } = issued()
    const client = answer({ type: 'webauthn.get', challenge, origin: ORIGIN })
    expect(await checkAnswer(request, client, { ceremony: 'get', origin: ORIGIN }, async () => false)).toEqual({ ok: false, reason: 'replayed' })
  })

  it.each([
    ['another origin', { origin: 'https://evil.example' }],
    ['another challenge', { challenge: 'c29tZW9uZSBlbHNl' }],
    ['the other ceremony', { type: 'webauthn.create' }],
    ['a cross-origin frame', { crossOrigin: true }],
  ])('refuses %s', async (_, change) => {
    const { challenge, request } = issued()
    const spend = vi.fn(async () => true)
    const client = answer({ type: 'webauthn.get', challenge, origin: ORIGIN, ...change })
    expect(await checkAnswer(request, client, { ceremony: 'get', origin: ORIGIN }, spend)).toEqual({ ok: false, reason: 'mismatch' })
    expect(spend).not.toHaveBeenCalled()
  })

  it('refuses client data that is not JSON of the expected shape', async () => {
    const { request } = issued()
    for (const bad of ['not json', { type: 'webauthn.get' }]) {
      expect(await checkAnswer(request, answer(bad), { ceremony: 'get', origin: ORIGIN }, async () => true)).toEqual({ ok: false, reason: 'mismatch' })
    }
  })

  it('without this browser’s challenge, or for the other ceremony, there is nothing to answer', async () => {
    const { challenge } = issued()
    const client = answer({ type: 'webauthn.get', challenge, origin: ORIGIN })
    const bare = new Request(`${ORIGIN}/passkey`, { method: 'POST' })
    expect(await checkAnswer(bare, client, { ceremony: 'get', origin: ORIGIN }, async () => true)).toEqual({ ok: false, reason: 'missing' })
    const { request } = issued('create')
    expect(await checkAnswer(request, client, { ceremony: 'get', origin: ORIGIN }, async () => true)).toEqual({ ok: false, reason: 'missing' })
  })

  it(`refuses it after ${CHALLENGE_SECONDS / 60} minutes`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const { challenge, request } = issued()
    vi.setSystemTime(Date.now() + CHALLENGE_SECONDS * 1000 + 1000)
    const client = answer({ type: 'webauthn.get', challenge, origin: ORIGIN })
    // The cookie outlives its challenge, so that a late answer is told it timed out.
    expect(await checkAnswer(request, client, { ceremony: 'get', origin: ORIGIN }, async () => true)).toEqual({ ok: false, reason: 'expired' })
  })
})
