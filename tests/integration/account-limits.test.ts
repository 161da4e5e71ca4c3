import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { waitFor } from '../../dev/ports'
import { TOTP_CODE, startMfaIdentity, type MfaIdentity } from '../support/mfa-identity'
import { browserAt } from '../support/http-browser'
import { ownPortal } from '../support/portal'

/**
 * Limits that hold for an account whatever the client (ADR 027), against the real emulator behind
 * the loopback second-factor service (tests/support/mfa-identity.ts), with the default limits:
 * second-factor codes and SMS sends per account and per phone across client addresses, and reset
 * emails that strangers' sign-in links or resets cannot silence.
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Account-Limits-2026'
const SESSION_SECRET = 'account-limits-test-session-secret-0123456789'
/** Five client addresses (TRUST_PROXY=1 believes X-Forwarded-For). */
const CLIENTS = ['198.51.100.21', '198.51.100.22', '198.51.100.23', '198.51.100.24', '198.51.100.25']


/** The emails the emulator "sent" to this address, of one kind. */
async function sent(email: string, requestType: 'PASSWORD_RESET' | 'EMAIL_SIGNIN' | 'VERIFY_AND_CHANGE_EMAIL'): Promise<number> {
  const res = await fetch(`${emulator.origin}/emulator/v1/projects/${emulator.projectId}/oobCodes`)
  const { oobCodes = [] } = (await res.json()) as { oobCodes?: Array<{ email: string; requestType: string }> }
  return oobCodes.filter((c) => c.email === email && c.requestType === requestType).length
}

let identity: MfaIdentity

beforeAll(async () => {
  identity = await startMfaIdentity(emulator.origin)
})
const portal = ownPortal(() => ({
  FIREBASE_AUTH_EMULATOR_HOST: identity.host,
  SESSION_SECRET,
  TRUST_PROXY: '1',
  FLAG_EMAIL_LINK_SIGN_IN: 'true',
}))

afterAll(async () => {
  await identity?.close()
})

/** One client's pending second-factor sign-in: the right password, then the step's page. */
async function pendingSignIn(ip: string, email: string) {
  const client = await (await browserAt(portal.url, ip)).load('/')
  const first = await client.submit('/?index', { email, password: PASSWORD }, { remember: true })
  expect(first.headers.get('location')).toBe('/second-factor')
  return client.load('/second-factor')
}

describe('second factor: per account, whatever the client', () => {
  it('wrong codes for one account from 5 clients stop reaching the service at the account limit (10 per hour)', async () => {
    const email = uniqueEmail('totp-account-limit')
    await admin.createUser(email, PASSWORD)
    const finalizes = () =>
      identity.calls.filter((c) => c.path.endsWith(':finalize') && c.body.mfaPendingCredential).length
    const before = finalizes()
    const statuses: number[] = []
    // Two pending sign-ins per client, five wrong codes each: 50 codes, under every per-client and per-pending limit.
    for (const ip of CLIENTS) {
      for (let p = 0; p < 2; p++) {
        const client = await pendingSignIn(ip, email)
        for (let i = 0; i < 5; i++) statuses.push((await client.submit('/second-factor', { code: '000000' }, { remember: true })).status)
      }
    }
    expect(finalizes() - before).toBe(10)
    expect(statuses.filter((s) => s === 429)).toHaveLength(40)
    // The right code is refused too while the account's limit is spent: it never reaches the service.
    const owner = await pendingSignIn('192.0.2.77', email)
    expect((await owner.submit('/second-factor', { code: TOTP_CODE }, { remember: true })).status).toBe(429)
    expect(finalizes() - before).toBe(10)
  })

  it('SMS sends for one account and its phone from 5 clients stop at the phone limit (5 per hour)', async () => {
    const email = uniqueEmail('captcha-sms-limit')
    await admin.createUser(email, PASSWORD)
    const starts = () =>
      identity.calls.filter(
        (c) => c.path.endsWith(':start') && (c.body.phoneSignInInfo as Record<string, unknown>).captchaResponse,
      ).length
    const before = starts()
    // Three pending sign-ins per client, one code asked in each: 15 sends, under every per-client and per-pending limit.
    for (const ip of CLIENTS) {
      for (let p = 0; p < 3; p++) {
        const client = await pendingSignIn(ip, email)
        await client.submit('/second-factor', { intent: 'resend', 'g-recaptcha-response': 'token' }, { remember: true })
      }
    }
    expect(starts() - before).toBe(5)
  })
})

describe('reset emails', () => {
  it("three strangers' sign-in links for an address do not silence its owner's reset", async () => {
    const email = uniqueEmail('link-then-reset')
    await admin.createUser(email, PASSWORD)
    for (const ip of CLIENTS.slice(0, 3)) {
      const stranger = await (await browserAt(portal.url, ip)).load('/')
      expect((await stranger.submit('/?index', { intent: 'email-link', email }, { remember: true })).status).toBe(303)
    }
    await waitFor('three sign-in links', async () => (await sent(email, 'EMAIL_SIGNIN')) === 3, 15_000)
    const owner = await (await browserAt(portal.url, '192.0.2.80')).load('/forgot-password')
    expect((await owner.submit('/forgot-password', { email }, { remember: true })).status).toBe(303)
    await waitFor("the owner's reset email", async () => (await sent(email, 'PASSWORD_RESET')) === 1, 15_000)
  })

  it("strangers who use up an address's resets do not silence a browser holding its device cookie", async () => {
    const email = uniqueEmail('reset-device')
    await admin.createUser(email, PASSWORD)
    const owner = await (await browserAt(portal.url, '192.0.2.81')).load('/')
    expect((await owner.submit('/?index', { email, password: PASSWORD }, { remember: true })).status).toBe(303)
    expect(owner.jar.has('device')).toBe(true)
    // Signed out, the device cookie stays (ADR 015).
    for (const name of [...owner.jar.keys()]) if (name !== 'device') owner.jar.delete(name)

    // RATE_LIMIT_RESET_PER_EMAIL (3 per hour) from three other clients, and a fourth refused.
    for (const ip of CLIENTS.slice(0, 4)) {
      const stranger = await (await browserAt(portal.url, ip)).load('/forgot-password')
      expect((await stranger.submit('/forgot-password', { email }, { remember: true })).status).toBe(303)
    }
    await waitFor("the strangers' three resets", async () => (await sent(email, 'PASSWORD_RESET')) === 3, 15_000)
    await owner.load('/forgot-password')
    expect((await owner.submit('/forgot-password', { email }, { remember: true })).status).toBe(303)
    await waitFor("the owner's reset email", async () => (await sent(email, 'PASSWORD_RESET')) === 4, 15_000)
  })
})

describe('change of address', () => {
  it('one confirmed account from three clients sends at most RATE_LIMIT_EMAIL_CHANGE_PER_ACCOUNT (3 an hour) emails to strangers: no mail relay', async () => {
    const email = uniqueEmail('email-relay')
    const { localId } = await admin.createUser(email, PASSWORD)
    await admin.verifyEmail(localId)
    const statuses: number[] = []
    for (const ip of CLIENTS.slice(0, 3)) {
      const client = await browserAt(portal.url, ip)
      expect((await client.signIn(email, PASSWORD, { remember: true })).status).toBe(303)
      expect((await client.confirm(PASSWORD, '/account/email')).headers.get('location')).toBe('/account/email')
      for (let i = 0; i < 4; i++) {
        await client.load('/account/email')
        const res = await client.submit('/account/email', { email: uniqueEmail('stranger') })
        statuses.push(res.status)
        if (res.status === 429) expect(res.html).toMatch(/Too many attempts\. You can try again at <time date[tT]ime="[^"]+">[^<]+ UTC<\/time>\./)
      }
    }
    expect(statuses).toEqual([303, 303, 303, ...Array<number>(9).fill(429)])
    await waitFor('the three emails', async () => (await sent(email, 'VERIFY_AND_CHANGE_EMAIL')) === 3, 15_000)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await sent(email, 'VERIFY_AND_CHANGE_EMAIL')).toBe(3)
  })
})
