import { afterEach, describe, expect, it, vi } from 'vitest'
import { confirmPassword } from '../../app/.server/auth/confirm-password'
import { readRecentLogin, sealRecentLogin } from '../../app/.server/auth/recent-login'
import { secondFactorView } from '../../app/.server/auth/second-factor'
import type { SessionUser } from '../../app/.server/auth/session'
import { createPortalContext } from '../../app/.server/context'
import { getIdentity } from '../../app/.server/identity'
import { consumeSignIn } from '../../app/.server/policy/rate-limit'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'

/**
 * "Confirm it's you" (app/.server/auth/recent-login.ts, ADR 036) in this process, against the
 * real Auth emulator: the password checked, the fresh ID token kept sealed and encrypted for this
 * browser for 5 minutes, and the attempt counted in sign-in's limits.
 */

const emu = await vi.hoisted(async () => (await import('../support/emulator-env')).pointAtEmulator())
const admin = emulatorAdmin(emu)
const PASSWORD = 'correct-horse-1'
const ORIGIN = 'http://localhost:3000'
/** Where each confirmation returns: the account page, nothing else to do. */
const BACK = { next: '/account', then: null }

afterEach(() => {
  vi.useRealTimers()
})

/** A browser: its cookies, as the Set-Cookie answers leave them. */
class Browser {
  jar = new Map<string, string>()
  constructor(readonly ip = `10.0.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`) {}
  request(): Request {
    const cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ')
    return new Request(`${ORIGIN}/account/confirm`, { headers: cookie ? { Cookie: cookie } : {} })
  }
  take(setCookies: string[]) {
    for (const line of setCookies) {
      const [pair = ''] = line.split(';')
      const eq = pair.indexOf('=')
      this.jar.set(pair.slice(0, eq), pair.slice(eq + 1))
    }
  }
  context() {
    return createPortalContext({ clientIp: this.ip, requestId: 'test', publicOrigin: ORIGIN, cspNonce: '', requestOrigin: ORIGIN })
  }
}

async function account(tag: string): Promise<SessionUser & { email: string }> {
  const email = uniqueEmail(tag)
  const { localId } = await admin.createUser(email, PASSWORD)
  return { uid: localId, email, remembered: false }
}

async function confirmed(browser: Browser, user: SessionUser) {
  const outcome = await confirmPassword(browser.request(), user, { password: PASSWORD }, BACK, browser.context())
  if (outcome.kind !== 'redirect') throw new Error(`expected confirmed, got ${JSON.stringify(outcome)}`)
  expect(outcome.location).toBe(BACK.next)
  const setCookies = [...(outcome.cookies ?? [])]
  browser.take(setCookies)
  return { setCookies }
}

describe('confirmPassword', () => {
  it('with the right password, a fresh token of this account is sealed here and read back for 5 minutes', async () => {
    const user = await account('confirm')
    const browser = new Browser()
    const outcome = await confirmed(browser, user)
    // The CSRF token this browser did not have yet, then the sealed token: HttpOnly, 5 minutes.
    expect(outcome.setCookies).toHaveLength(2)
    expect(outcome.setCookies[1]).toMatch(/^recent_login=[^;]+; Path=\/; SameSite=Lax; Max-Age=300; HttpOnly$/)

    const idToken = readRecentLogin(browser.request(), user)
    expect(idToken).toMatch(/^[\w-]+\.[\w-]+\./)
    // The identity service takes it: it is the account's own, fresh token.
    await expect(getIdentity().lookup(idToken!)).resolves.toMatchObject({
      localId: user.uid,
    })
    // Only this server can read it: neither the token nor its claims are in the cookie.
    const cookie = browser.jar.get('recent_login')!
    const claims = idToken!.split('.')[1]!
    expect(cookie).not.toContain(claims.slice(0, 40))
    expect(decodeURIComponent(cookie)).not.toContain(claims.slice(0, 40))
    expect(Buffer.from(decodeURIComponent(cookie), 'base64url').toString('latin1')).not.toContain(claims.slice(0, 40))

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 290_000 })
    expect(readRecentLogin(browser.request(), user)).toBe(idToken)
    vi.setSystemTime(Date.now() + 20_000)
    expect(readRecentLogin(browser.request(), user)).toBeNull()
  })

  it('a wrong password is refused and counted as a failed sign-in for this address and client', async () => {
    const user = await account('wrong')
    const browser = new Browser()
    // RATE_LIMIT_SIGNIN_PER_EMAIL_IP is 5 by default.
    for (let i = 0; i < 5; i++) {
      expect(
        await confirmPassword(browser.request(), user, { password: 'not-the-password' }, BACK, browser.context()),
      ).toEqual({ kind: 'page', status: 400, data: { formError: 'error.wrongCredentials', captcha: null } })
    }
    expect(browser.jar.size).toBe(0)
    // Even the right password is refused now, here and at sign-in, from this client.
    const limited = await confirmPassword(browser.request(), user, { password: PASSWORD }, BACK, browser.context())
    expect(limited).toMatchObject({ kind: 'page', status: 429, data: { formError: 'error.tooManyRequests' } })
    expect(limited.retryAfter).toBeGreaterThan(0)
    expect(await consumeSignIn({ ip: browser.ip, email: user.email })).toMatchObject({ ok: false })
    // Another client is not limited by them.
    await confirmed(new Browser(), user)
  })

  it('failed sign-ins count against it too', async () => {
    const user = await account('signin-failures')
    const browser = new Browser()
    for (let i = 0; i < 5; i++) {
      const attempt = await consumeSignIn({ ip: browser.ip, email: user.email })
      if (!attempt.ok) throw new Error('expected the attempt to pass')
      await attempt.release('failure')
    }
    expect(await confirmPassword(browser.request(), user, { password: PASSWORD }, BACK, browser.context())).toMatchObject({
      kind: 'page',
      status: 429,
    })
  })

  it('a right password after wrong ones clears this client’s count, as a sign-in does', async () => {
    const user = await account('recover')
    const browser = new Browser()
    for (let i = 0; i < 4; i++) {
      await confirmPassword(browser.request(), user, { password: 'not-the-password' }, BACK, browser.context())
    }
    await confirmed(browser, user)
    for (let i = 0; i < 4; i++) {
      await confirmPassword(browser.request(), user, { password: 'not-the-password' }, BACK, browser.context())
    }
    await confirmed(browser, user)
  })

  it('an account with a second factor: the step comes next, nothing is sealed and nothing counted', async () => {
    const user = await account('mfa')
    await admin.enrollSms(user.uid, [{ phoneNumber: '+15555550142', displayName: 'Phone' }])
    const browser = new Browser()
    for (let i = 0; i < 6; i++) {
      const outcome = await confirmPassword(browser.request(), user, { password: PASSWORD }, BACK, browser.context())
      expect(outcome).toMatchObject({ kind: 'redirect', location: '/second-factor' })
      browser.take([...(outcome.cookies ?? [])])
      // The step is this confirmation's, with the account's phone.
      expect(secondFactorView(browser.request())).toMatchObject({
        kind: 'page',
        data: { view: { step: 'code', factor: { kind: 'phone' }, confirming: true } },
      })
    }
    expect(browser.jar.has('recent_login')).toBe(false)
  })

  it('a session without an address has no password to type', async () => {
    const browser = new Browser()
    expect(
      await confirmPassword(browser.request(), { uid: 'x', email: null, remembered: false }, { password: PASSWORD }, BACK, browser.context()),
    ).toEqual({
      kind: 'page',
      status: 403,
      data: { formError: 'confirm.noPassword', captcha: null },
    })
  })
})

describe('readRecentLogin refuses', () => {
  it('when there is none', () => {
    expect(readRecentLogin(new Browser().request(), { uid: 'someone', email: null, remembered: false })).toBeNull()
  })

  it('a seal older than 5 minutes', async () => {
    const user = await account('expired')
    const browser = new Browser()
    await confirmed(browser, user)
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 301_000 })
    expect(readRecentLogin(browser.request(), user)).toBeNull()
  })

  it('another account’s seal', async () => {
    const [alice, bob] = [await account('alice'), await account('bob')]
    const browser = new Browser()
    await confirmed(browser, alice)
    expect(readRecentLogin(browser.request(), bob)).toBeNull()
    expect(readRecentLogin(browser.request(), alice)).not.toBeNull()
  })

  it('a seal carried to another browser', async () => {
    const user = await account('carried')
    const [victim, attacker] = [new Browser(), new Browser()]
    await confirmed(attacker, user)
    victim.take(['csrf=' + 'x'.repeat(10)])
    victim.jar.set('recent_login', attacker.jar.get('recent_login')!)
    expect(readRecentLogin(victim.request(), user)).toBeNull()
    // A browser with its own CSRF token (minted by this server) does not open another's seal either.
    const other = new Browser()
    await confirmed(other, await account('other'))
    other.jar.set('recent_login', attacker.jar.get('recent_login')!)
    expect(readRecentLogin(other.request(), user)).toBeNull()
  })

  it('a tampered seal', async () => {
    const user = await account('tampered')
    const browser = new Browser()
    await confirmed(browser, user)
    expect(readRecentLogin(browser.request(), user)).not.toBeNull()
    const sealed = Buffer.from(decodeURIComponent(browser.jar.get('recent_login')!), 'base64url')
    const flip = (at: number) => {
      const altered = Buffer.from(sealed)
      altered[at] = altered[at]! ^ 1
      return altered
    }
    // A byte of the IV, of the tag, of the ciphertext (where the expiry is), the last one; cut short.
    for (const forged of [flip(0), flip(12), flip(28), flip(sealed.length - 1), sealed.subarray(0, sealed.length - 1)]) {
      browser.jar.set('recent_login', encodeURIComponent(forged.toString('base64url')))
      expect(readRecentLogin(browser.request(), user)).toBeNull()
    }
  })
})

describe('sealRecentLogin', () => {
  it('seals only a token of this account from a sign-in less than 5 minutes old', async () => {
    const user = await account('seal')
    const other = await account('seal-other')
    const { idToken } = await getIdentity().signInWithPassword(user.email, PASSWORD)
    const browser = new Browser()
    expect(sealRecentLogin(browser.request(), other, idToken)).toBeNull()
    expect(sealRecentLogin(browser.request(), user, 'not-a-token')).toBeNull()
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 301_000 })
    expect(sealRecentLogin(browser.request(), user, idToken)).toBeNull()
    vi.useRealTimers()
    browser.take(sealRecentLogin(browser.request(), user, idToken)!)
    expect(readRecentLogin(browser.request(), user)).toBe(idToken)
  })
})
