import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { startPortal, type Portal } from '../../dev/portal'
import { waitFor } from '../../dev/ports'
import { emulatorIdentityClient } from '../support/emulator-identity'
import { startLoopbackIdentity } from '../support/emulator-relay'
import { codeOf } from '../support/identity-errors'
import { ownPortal } from '../support/portal'
import { HttpBrowser } from '../support/http-browser'
import {
  SITE_KEY,
  startRecaptchaScriptStub,
  startRecaptchaService,
  type RecaptchaScriptStub,
  type RecaptchaService,
} from '../support/recaptcha'

/**
 * "Create an account" and the identity project's settings (ADR 066): a project that takes no
 * sign-ups, and reCAPTCHA Enterprise enforced (ADR 020), whose token for signUpPassword goes with
 * the sign-up and whose token for getOobCode goes with the reset email an existing account's owner gets.
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Brand-New-Secret-77'
const fields = (email: string) => ({ email, password: PASSWORD, confirmation: PASSWORD })
const TURNED_OFF = 'La création de compte est désactivée pour ce service\u00a0: contactez l’équipe qui le gère.'

describe("the emulator's answers to accounts:signUp", () => {
  it('a new address: an account and its tokens; again: email-already-in-use; a tenant without password sign-up: operation-not-allowed', async () => {
    const identity = emulatorIdentityClient()
    const email = uniqueEmail('sign-up-contract')
    const made = await identity.signUp(email, PASSWORD)
    expect(made).toMatchObject({ email, localId: expect.any(String), idToken: expect.stringContaining('.') })
    expect(await codeOf(identity.signUp(email, PASSWORD))).toBe('auth/email-already-in-use')
    await identity.close()

    const res = await fetch(
      `${emulator.origin}/identitytoolkit.googleapis.com/v2/projects/${emulator.projectId}/tenants`,
      {
        method: 'POST',
        headers: { Authorization: 'Bearer owner', 'Content-Type': 'application/json' },
        body: JSON.stringify({ displayName: 'no-sign-up', allowPasswordSignup: false }),
      },
    )
    const tenantId = ((await res.json()) as { name: string }).name.split('/').pop()!
    const tenant = emulatorIdentityClient({ tenantId })
    expect(await codeOf(tenant.signUp(uniqueEmail('sign-up-tenant'), PASSWORD))).toBe('auth/operation-not-allowed')
    await tenant.close()
  })
})

describe.each([
  ['OPERATION_NOT_ALLOWED', 'the project has no email/password sign-up'],
  ['ADMIN_ONLY_OPERATION', 'the project lets only its administrators create accounts'],
])('%s (%s)', (refusal) => {
  let signUps = 0
  let refusing: { host: string; close(): Promise<void> }
  beforeAll(async () => {
    refusing = await startLoopbackIdentity(emulator.origin, async ({ path, answer }) => {
      if (path !== '/v1/accounts:signUp') return
      signUps++
      answer(400, { error: { code: 400, message: refusal, errors: [{ message: refusal, reason: 'invalid' }] } })
    })
  })
  afterAll(() => refusing?.close())
  const portal = ownPortal(() => ({ FIREBASE_AUTH_EMULATOR_HOST: refusing.host, FLAG_SIGN_UP: 'true' }))

  it('the refusal turns the form off: the page says the operator has turned sign-up off (403), and posts reach nothing', async () => {
    const form = await new HttpBrowser(portal.url).load('/sign-up')
    // The first post is answered as every post is, before the service is asked.
    const answer = await form.submit('/sign-up', fields(uniqueEmail('sign-up-off')))
    expect(answer.headers.get('location')).toBe('/sign-up?sent=1')
    await waitFor('the refusal', async () => (await fetch(`${portal.url}/sign-up`)).status === 403, 15_000)
    const page = await (await fetch(`${portal.url}/sign-up`)).text()
    expect(page).toMatch(new RegExp(`role="alert"[^>]*>${TURNED_OFF}<`))
    expect(page).not.toContain('type="password"')
    const after = signUps
    const again = await form.submit('/sign-up', fields(uniqueEmail('sign-up-off')))
    expect(again.status).toBe(403)
    expect(await again.text()).toContain(TURNED_OFF)
    expect(signUps).toBe(after)
    expect(portal.output()).toContain('"event":"sign-up-not-allowed"')
  })
})

describe('reCAPTCHA enforced on email and password', () => {
  let service: RecaptchaService
  let stub: RecaptchaScriptStub
  let portal: Portal
  beforeAll(async () => {
    service = await startRecaptchaService({ emulatorOrigin: emulator.origin, state: 'ENFORCE' })
    stub = await startRecaptchaScriptStub()
    portal = await startPortal({
      FIREBASE_AUTH_EMULATOR_HOST: service.host,
      FIREBASE_PROJECT_ID: emulator.projectId,
      RECAPTCHA_SCRIPT_URL: stub.url,
      FLAG_SIGN_UP: 'true',
    })
  })
  afterAll(async () => {
    await portal?.stop()
    await service?.stop()
    await stub?.stop()
  })

  it('the page loads the script with the site key', async () => {
    expect(await (await fetch(`${portal.url}/sign-up`)).text()).toContain(`${stub.url}?render=${SITE_KEY}`)
  })

  it('without JavaScript (no token) the page says the check needs it, the address kept, and nothing is asked', async () => {
    const email = uniqueEmail('sign-up-captcha-nojs')
    const before = service.seen.length
    const res = await (await new HttpBrowser(portal.url).load('/sign-up')).submit('/sign-up', fields(email))
    expect(res.status).toBe(400)
    const html = await res.text()
    expect(html).toMatch(/role="alert"[^>]*>[^<]*JavaScript/)
    expect(html).toContain(`value="${email}"`)
    expect(html).not.toContain(PASSWORD)
    expect(service.seen.length).toBe(before)
  })

  it('a new address: the sign-up carries the signUpPassword token, and the account gets its verification', async () => {
    const email = uniqueEmail('sign-up-captcha-new')
    const form = await new HttpBrowser(portal.url).load('/sign-up')
    const res = await form.submit('/sign-up', {
      ...fields(email),
      'g-recaptcha-response': 'token-for-signUpPassword.1',
      'g-recaptcha-response-getOobCode': 'token-for-getOobCode.2',
    })
    expect(res.headers.get('location')).toBe('/sign-up?sent=1')
    await admin.emailed(email, 'VERIFY_EMAIL')
    expect(service.seen.filter((s) => s.call === 'signUp' && s.token === 'token-for-signUpPassword.1')).toEqual([
      {
        call: 'signUp',
        token: 'token-for-signUpPassword.1',
        clientType: 'CLIENT_TYPE_WEB',
        recaptchaVersion: 'RECAPTCHA_ENTERPRISE',
        refused: null,
      },
    ])
  })

  it("an address with an account: its owner's reset email carries the getOobCode token", async () => {
    const email = uniqueEmail('sign-up-captcha-known')
    await admin.createUser(email, 'Old-password-2024')
    const form = await new HttpBrowser(portal.url).load('/sign-up')
    await form.submit('/sign-up', {
      ...fields(email),
      'g-recaptcha-response': 'token-for-signUpPassword.3',
      'g-recaptcha-response-getOobCode': 'token-for-getOobCode.4',
    })
    await admin.emailed(email, 'PASSWORD_RESET')
    expect(service.seen.find((s) => s.call === 'sendOobCode' && s.token === 'token-for-getOobCode.4')).toMatchObject({
      refused: null,
    })
  })
})
