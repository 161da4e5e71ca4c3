import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppLoadContext } from '~/.server/context'

const service = vi.hoisted(() => ({
  startPasskeySignIn: vi.fn(async () => ({ challenge: Buffer.from('challenge-of-the-service').toString('base64'), rpId: 'localhost' })),
  finalizePasskeySignIn: vi.fn(async () => ({ idToken: 'never-reached' })),
}))
vi.mock('~/.server/identity', async (original) => ({ ...(await original<object>()), getIdentity: () => service }))
const { finishPasskeySignIn, startPasskeySignIn } = await import('./passkey-sign-in')

const ORIGIN = 'http://localhost:3000'
const context = { clientIp: '203.0.113.9', requestId: 'test', publicOrigin: ORIGIN } as AppLoadContext

/** A browser: its cookie jar, fed by Set-Cookie values. */
class Browser {
  jar = new Map<string, string>()
  take(setCookies: readonly string[] = []) {
    for (const line of setCookies) {
      const pair = line.split(';')[0]!
      this.jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1))
    }
  }
  request() {
    return new Request(`${ORIGIN}/passkey`, { headers: { Cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ') } })
  }
}

/** Starts a ceremony in `browser`: the challenge its page is given. */
async function start(browser: Browser): Promise<string> {
  const started = await startPasskeySignIn(browser.request(), context)
  if (started.kind !== 'page' || !('options' in started.data)) throw new Error('no options')
  browser.take(started.cookies)
  return started.data.options.challenge as string
}

/** The browser's answer to `challenge`, as the authenticator would sign it. */
const answer = (challenge: string) => ({
  id: 'Y3JlZGVudGlhbA',
  rawId: 'Y3JlZGVudGlhbA',
  type: 'public-key' as const,
  response: {
    clientDataJSON: Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: ORIGIN })).toString('base64url'),
    authenticatorData: 'AAAA',
    signature: 'AAAA',
  },
})

const finish = (browser: Browser, challenge: string) =>
  finishPasskeySignIn(browser.request(), { credential: answer(challenge), redirect: null, remember: false }, context)

const refusal = (result: Awaited<ReturnType<typeof finish>>) =>
  result.kind === 'page' && 'error' in result.data ? result.data.error : null

describe('the passkey challenge is bound to its browser', () => {
  beforeEach(() => {
    vi.useRealTimers()
    service.finalizePasskeySignIn.mockClear()
  })

  it('hands the service the base64url challenge the browser signs', async () => {
    expect(await start(new Browser())).toBe(Buffer.from('challenge-of-the-service').toString('base64url'))
  })

  it('refuses an answer to another browser’s challenge without asking the service', async () => {
    const mine = new Browser()
    const challenge = await start(mine)
    const other = new Browser()
    await start(other)
    other.jar.set('passkey_challenge', mine.jar.get('passkey_challenge')!)
    expect(refusal(await finish(other, challenge))).toBe('passkey.refused')
    expect(refusal(await finish(new Browser(), challenge))).toBe('passkey.refused')
    expect(service.finalizePasskeySignIn).not.toHaveBeenCalled()
  })

  it('refuses an answer to a challenge older than 5 minutes without asking the service', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const browser = new Browser()
    const challenge = await start(browser)
    vi.setSystemTime(Date.now() + 5 * 60_000 + 1_000)
    expect(refusal(await finish(browser, challenge))).toBe('passkey.timedOut')
    expect(service.finalizePasskeySignIn).not.toHaveBeenCalled()
  })

  it('refuses a second answer to the same challenge without asking the service again', async () => {
    const browser = new Browser()
    const challenge = await start(browser)
    const kept = new Map(browser.jar)
    await finish(browser, challenge)
    expect(service.finalizePasskeySignIn).toHaveBeenCalledTimes(1)
    browser.jar = kept
    expect(refusal(await finish(browser, challenge))).toBe('passkey.refused')
    expect(service.finalizePasskeySignIn).toHaveBeenCalledTimes(1)
  })

  it('refuses an answer signed for another challenge or origin', async () => {
    const browser = new Browser()
    await start(browser)
    expect(refusal(await finish(browser, 'c29tZXRoaW5nLWVsc2U'))).toBe('passkey.refused')
    expect(service.finalizePasskeySignIn).not.toHaveBeenCalled()
  })
})
