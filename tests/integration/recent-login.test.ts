import { afterEach, describe, expect, it, vi } from 'vitest'
import { confirmPassword } from '../../app/routes/account.confirm.server'
import { secondFactorView } from '../../app/.server/auth/second-factor'
import { createSession, getSession, keepRecentSignIn, type SessionUser } from '../../app/.server/auth/session'
import { getSessionStore } from '../../app/.server/auth/session-store'
import { createPortalContext } from '../../app/.server/http/router-handler'
import { getIdentity } from '../../app/.server/identity'
import { getRateLimits } from '../../app/.server/policy/rate-limit'
import { accountOf } from '../support/emulator-identity'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'

/**
 * "Confirm it's you" (app/.server/auth/recent-login.ts, ADR 036) in this process, against the
 * real Auth emulator: a sign-in is recent for 5 minutes; after it the password is checked again,
 * the fresh ID token kept sealed in this browser's session record for 5 minutes (ADR 063), and the
 * attempt counted in sign-in's limits.
 */

const emu = await vi.hoisted(async () => (await import('../support/emulator-env')).pointAtEmulator())
const admin = emulatorAdmin(emu)
const PASSWORD = 'correct-horse-1'
const ORIGIN = 'http://localhost:3000'
/** Where each confirmation returns: the account page, nothing else to do. */
const BACK = { next: '/account', then: null }
const SIX_MINUTES = 6 * 60_000

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
  /** The signed-in visitor this browser is, as an account page sees it. */
  async user(): Promise<SessionUser & { email: string }> {
    const session = await getSession(this.request())
    if (session.status !== 'signed-in') throw new Error(`expected signed in, got ${session.status}`)
    return session.user as SessionUser & { email: string }
  }
}

async function account(tag: string) {
  const email = uniqueEmail(tag)
  const { localId } = await admin.createUser(email, PASSWORD)
  return { uid: localId, email }
}

/** A browser signed in to `who` with the password, `minutesAgo` (the clock moved on since). */
async function signedIn(who: { email: string }, browser = new Browser()) {
  const { idToken } = await getIdentity().signInWithPassword(who.email, PASSWORD)
  browser.take([await createSession(idToken, { method: 'password', secondFactor: null, remember: false }, browser.context())])
  return browser
}

/**
 * A browser signed in, and its visitor as a page 6 minutes later sees it: the sign-in no longer
 * recent. The clock is real again afterwards, since the emulator dates the next tokens by its own.
 */
async function signedInLongAgo(who: { email: string }) {
  const browser = await signedIn(who)
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + SIX_MINUTES })
  const user = await browser.user()
  vi.useRealTimers()
  expect(user.recentIdToken).toBeNull()
  return { browser, user }
}

async function confirmed(browser: Browser, user: SessionUser) {
  const outcome = await confirmPassword(browser.request(), user, { password: PASSWORD }, BACK, browser.context())
  if (outcome.kind !== 'redirect') throw new Error(`expected confirmed, got ${JSON.stringify(outcome)}`)
  expect(outcome.location).toBe(BACK.next)
  const setCookies = [...(outcome.cookies ?? [])]
  browser.take(setCookies)
  return { setCookies }
}

describe('a recent sign-in', () => {
  it('is the sign-in itself, for 5 minutes: no second password entry right after signing in', async () => {
    const who = await account('just-signed-in')
    const browser = await signedIn(who)
    const token = (await browser.user()).recentIdToken
    expect(token).toMatch(/^[\w-]+\.[\w-]+\./)
    await expect(accountOf(token!)).resolves.toMatchObject({ localId: who.uid })
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 290_000 })
    expect((await browser.user()).recentIdToken).toBe(token)
    vi.setSystemTime(Date.now() + 20_000)
    expect((await browser.user()).recentIdToken).toBeNull()
  })
})

describe('confirmPassword', () => {
  it('with the right password, a fresh token of this account is kept in the record for 5 minutes, never in a cookie or in clear', async () => {
    const who = await account('confirm')
    const { browser, user } = await signedInLongAgo(who)
    const outcome = await confirmed(browser, user)
    // The CSRF token this browser did not have yet, at most: the token itself is in no cookie.
    expect(outcome.setCookies.every((c) => c.startsWith('csrf='))).toBe(true)

    const idToken = (await browser.user()).recentIdToken
    expect(idToken).toMatch(/^[\w-]+\.[\w-]+\./)
    await expect(accountOf(idToken!)).resolves.toMatchObject({ localId: who.uid })
    // The store holds it sealed: neither the token nor its claims are in the record.
    const [record] = await getSessionStore().list(who.uid)
    const claims = idToken!.split('.')[1]!
    expect(JSON.stringify(record)).not.toContain(claims.slice(0, 40))

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 290_000 })
    expect((await browser.user()).recentIdToken).toBe(idToken)
    vi.setSystemTime(Date.now() + 20_000)
    expect((await browser.user()).recentIdToken).toBeNull()
  })

  it('a wrong password is refused and counted as a failed sign-in for this address and client', async () => {
    const { browser, user } = await signedInLongAgo(await account('wrong'))
    const jar = new Map(browser.jar)
    // RATE_LIMIT_SIGNIN_PER_EMAIL_IP is 5 by default.
    for (let i = 0; i < 5; i++) {
      expect(
        await confirmPassword(browser.request(), user, { password: 'not-the-password' }, BACK, browser.context()),
      ).toEqual({ kind: 'page', status: 400, data: { formError: 'confirm.wrongPassword', captcha: null } })
    }
    expect(browser.jar).toEqual(jar)
    // Even the right password is refused now, here and at sign-in, from this client.
    const limited = await confirmPassword(browser.request(), user, { password: PASSWORD }, BACK, browser.context())
    expect(limited).toMatchObject({ kind: 'page', status: 429, data: { formError: 'error.tooManyRequestsAt' } })
    expect(limited.retryAfter).toBeGreaterThan(0)
    expect(await getRateLimits().consumeSignIn({ ip: browser.ip, email: user.email })).toMatchObject({ ok: false })
    // Another client is not limited by them.
    const other = await signedIn(user)
    await confirmed(other, await other.user())
  })

  it('failed sign-ins count against it too', async () => {
    const { browser, user } = await signedInLongAgo(await account('signin-failures'))
    for (let i = 0; i < 5; i++) {
      const attempt = await getRateLimits().consumeSignIn({ ip: browser.ip, email: user.email })
      if (!attempt.ok) throw new Error('expected the attempt to pass')
      await attempt.release('failure')
    }
    expect(await confirmPassword(browser.request(), user, { password: PASSWORD }, BACK, browser.context())).toMatchObject({
      kind: 'page',
      status: 429,
    })
  })

  it('a right password after wrong ones clears this client’s count, as a sign-in does', async () => {
    const { browser, user } = await signedInLongAgo(await account('recover'))
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
    const { browser, user } = await signedInLongAgo(await account('mfa'))
    await admin.enrollSms(user.uid, [{ phoneNumber: '+15555550142', displayName: 'Phone' }])
    const sealed = async () => (await getSessionStore().list(user.uid)).map((s) => s.sealed)
    const before = await sealed()
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
    expect(await sealed()).toEqual(before)
  })

  it('a session without an address has no password to type', async () => {
    const browser = new Browser()
    expect(
      await confirmPassword(
        browser.request(),
        { uid: 'x', email: null, remembered: false, sessionKey: 'none', recentIdToken: null },
        { password: PASSWORD },
        BACK,
        browser.context(),
      ),
    ).toEqual({
      kind: 'page',
      status: 403,
      data: { formError: 'confirm.noPassword', captcha: null },
    })
  })
})

describe('keepRecentSignIn', () => {
  it('keeps only a token of this account from a sign-in less than 5 minutes old, in a live record', async () => {
    const [who, other] = [await account('keep'), await account('keep-other')]
    const { browser, user } = await signedInLongAgo(who)
    const { idToken } = await getIdentity().signInWithPassword(who.email, PASSWORD)
    const { idToken: othersToken } = await getIdentity().signInWithPassword(other.email, PASSWORD)
    expect(await keepRecentSignIn(browser.request(), user, othersToken)).toBe(false)
    expect(await keepRecentSignIn(browser.request(), user, 'not-a-token')).toBe(false)
    // No session record: a browser signed out, or never signed in.
    expect(await keepRecentSignIn(new Browser().request(), user, idToken)).toBe(false)
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 301_000 })
    expect(await keepRecentSignIn(browser.request(), user, idToken)).toBe(false)
    vi.useRealTimers()
    expect(await keepRecentSignIn(browser.request(), user, idToken)).toBe(true)
    expect((await browser.user()).recentIdToken).toBe(idToken)
  })
})
