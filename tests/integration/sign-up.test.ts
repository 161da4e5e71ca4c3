import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { waitFor } from '../../dev/ports'
import { startHeldIdentity } from '../support/emulator-relay'
import { browserAt, HttpBrowser, maskServed } from '../support/http-browser'
import { ownPortal } from '../support/portal'

/**
 * "Create an account" tells nobody whether an address has an account (ADR 066): the same answer for an
 * address with an account and one without, given before the identity service has said a word, so its
 * answer cannot show in the time either; and its limits hold when the posts come all at once.
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Brand-New-Secret-77'
const fields = (email: string) => ({ email, password: PASSWORD, confirmation: PASSWORD })

/** The emails the emulator "sent" to this address, by kind. */
async function emailsTo(email: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const code of await admin.oobCodes())
    if (code.email === email) counts[code.requestType] = (counts[code.requestType] ?? 0) + 1
  return counts
}

describe('an address with an account and one without', () => {
  let service: Awaited<ReturnType<typeof startHeldIdentity>>
  beforeAll(async () => {
    service = await startHeldIdentity(emulator.origin)
  })
  afterAll(() => service?.close())
  const portal = ownPortal(() => ({
    FIREBASE_AUTH_EMULATOR_HOST: service.host,
    FLAG_SIGN_UP: 'true',
    RATE_LIMIT_SIGN_UP_PER_IP: '10000',
    RATE_LIMIT_RESET_PER_EMAIL: '10000',
    LOG_LEVEL: 'warn',
  }))

  it('get their whole answer while the identity service is held, and only then is it asked', async () => {
    const known = uniqueEmail('sign-up-held-known')
    const nobody = uniqueEmail('sign-up-held-nobody')
    await admin.createUser(known, 'Old-password-2024')
    const form = await new HttpBrowser(portal.url).load('/sign-up')
    for (const email of [known, nobody]) {
      const release = service.hold()
      const before = service.asked.length
      try {
        const res = await form.submit('/sign-up', fields(email))
        await res.arrayBuffer()
        expect(res.status).toBe(303)
        expect(res.headers.get('location')).toBe('/sign-up?sent=1')
        // Had the portal waited for the service, the answer above would never have come.
        await expect.poll(() => service.asked.slice(before)).toContain('/v1/accounts:signUp')
      } finally {
        release()
      }
    }
    // Both ways were then taken: the owner got a reset email, the new address its verification.
    await waitFor('the verification', async () => (await emailsTo(nobody)).VERIFY_EMAIL === 1, 15_000)
    await waitFor("the owner's reset", async () => (await emailsTo(known)).PASSWORD_RESET === 1, 15_000)
    expect((await emailsTo(known)).VERIFY_EMAIL).toBeUndefined()
  })

  it('get byte for byte the same answer and page', async () => {
    const known = uniqueEmail('sign-up-known')
    await admin.createUser(known, 'Old-password-2024')
    const answers = []
    for (const email of [known, uniqueEmail('sign-up-unknown')]) {
      const form = await new HttpBrowser(portal.url).load('/sign-up')
      const res = await form.submit('/sign-up', fields(email))
      // The address as typed rides in a sealed cookie (ADR 083), whose value differs on every write: its name and attributes are compared.
      const headers = [...res.headers]
        .filter(([name]) => !['date', 'x-request-id', 'content-security-policy'].includes(name))
        .map(([name, value]) => [name, name === 'set-cookie' ? value.replace(/^((?:__Host-)?email_sent=)[^;]+/, '$1SEALED') : value])
      const sent = await fetch(`${portal.url}${res.headers.get('location')}`)
      const normalised = maskServed(await sent.text())
      answers.push({ status: res.status, headers, body: await res.text(), page: sent.status, html: normalised })
    }
    expect(answers[0]).toEqual(answers[1])
    expect(answers[0]!.html).toContain('Consultez votre messagerie pour terminer la création de votre compte')
  })
})

describe('the limits, posts all at once', () => {
  const portal = ownPortal(
    { FLAG_SIGN_UP: 'true', TRUST_PROXY: '1', RATE_LIMIT_SIGN_UP_PER_IP: '5', LOG_LEVEL: 'warn' },
    { metrics: true },
  )

  /** The counter of sign-ups with this outcome. */
  async function signUps(outcome: string): Promise<number> {
    const text = await (await fetch(portal.metricsUrl)).text()
    const line = text.split('\n').find((l) => l.startsWith(`portal_sign_up_total{outcome="${outcome}"}`))
    return line ? Number(line.split(' ').pop()) : 0
  }

  it('20 sign-ups for one address from 20 clients: 3 go through (RATE_LIMIT_RESET_PER_EMAIL), one account, 3 emails', async () => {
    const email = uniqueEmail('sign-up-burst')
    const clients = await Promise.all(Array.from({ length: 20 }, (_, i) => browserAt(portal.url, `198.51.100.${i + 1}`)))
    const limitedBefore = await signUps('limited')
    const answers = await Promise.all(clients.map((client) => client.submit('/sign-up', fields(email))))
    // Every client, let through or not, got the same answer.
    expect(new Set(answers.map((a) => `${a.status} ${a.headers.get('location')}`))).toEqual(
      new Set(['303 /sign-up?sent=1']),
    )
    await waitFor(
      'three emails',
      async () => Object.values(await emailsTo(email)).reduce((a, b) => a + b, 0) === 3,
      15_000,
    )
    // One sign-up made the account; the two after it found it there and sent its owner a reset.
    expect(await emailsTo(email)).toEqual({ VERIFY_EMAIL: 1, PASSWORD_RESET: 2 })
    expect((await signUps('limited')) - limitedBefore).toBe(17)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await emailsTo(email)).toEqual({ VERIFY_EMAIL: 1, PASSWORD_RESET: 2 })
  })

  it('20 sign-ups for 20 addresses from one client: 5 accounts (RATE_LIMIT_SIGN_UP_PER_IP)', async () => {
    const emails = Array.from({ length: 20 }, () => uniqueEmail('sign-up-client'))
    const client = await browserAt(portal.url, '203.0.113.9')
    const answers = await Promise.all(emails.map((email) => client.submit('/sign-up', fields(email))))
    expect(new Set(answers.map((a) => `${a.status} ${a.headers.get('location')}`))).toEqual(
      new Set(['303 /sign-up?sent=1']),
    )
    const made = async () => (await Promise.all(emails.map((e) => admin.localIdOf(e)))).filter(Boolean).length
    await waitFor('five accounts', async () => (await made()) === 5, 15_000)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await made()).toBe(5)
  })
})
