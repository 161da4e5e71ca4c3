import { afterAll, beforeAll, expect, inject, it } from 'vitest'
import { HttpBrowser } from '../support/http-browser'
import { htmlErrors } from '../support/html-checker'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { waitFor } from '../../dev/ports'
import { ownPortal } from '../support/portal'
import { startLoopbackIdentity } from '../support/emulator-relay'
import { claimsFor, providerAnswer, providerStart } from '../support/sso-provider'
import { startMfaIdentity, type MfaIdentity } from '../support/mfa-identity'
import { totpCode } from '../support/totp'

/**
 * Every page state as a browser without JavaScript receives it, in both languages, through the Nu
 * Html Checker (tests/support/html-checker.ts): no error. html-validity-next-steps.test.ts has the
 * states that say what works next.
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Valid-Html-Pass-2026'
const portal = ownPortal({
  FLAG_EMAIL_LINK_SIGN_IN: 'true',
  FLAG_PASSKEYS: 'true',
  FLAG_SIGN_UP: 'true',
  RATE_LIMIT_RESET_PER_IP: '10000',
  RATE_LIMIT_SIGNIN_PER_IP: '10000',
  RATE_LIMIT_NEW_PASSWORD_PER_IP: '10000',
})
/** The single sign-on variant (ADR 043): its sign-in page, and "Confirm it's you" through the provider. */
const ssoPortal = ownPortal({ FLAG_SSO: 'true', SSO_PROVIDER_ID: 'google.com' })
let loop: MfaIdentity
/** An identity project that takes no sign-ups: /sign-up then says sign-up is turned off (ADR 066). */
let noSignUp: { host: string; close(): Promise<void> }
beforeAll(async () => {
  loop = await startMfaIdentity(emulator.origin)
  noSignUp = await startLoopbackIdentity(emulator.origin, async ({ path, answer }) => {
    if (path === '/v1/accounts:signUp') answer(400, { error: { code: 400, message: 'OPERATION_NOT_ALLOWED' } })
  })
})
afterAll(async () => {
  await loop?.close()
  await noSignUp?.close()
})
const signUpOffPortal = ownPortal(() => ({ FIREBASE_AUTH_EMULATOR_HOST: noSignUp.host, FLAG_SIGN_UP: 'true' }))
/** The authenticator app's pages need the loopback identity service (the emulator has no TOTP). */
const totpPortal = ownPortal(() => ({ FIREBASE_AUTH_EMULATOR_HOST: loop.host }))

/** Each page state, as HTML, under a name saying what it is. */
async function pageStates(language: 'fr' | 'en'): Promise<Map<string, string>> {
  const pages = new Map<string, string>()
  const browser = new HttpBrowser(portal.url)
  browser.plant('i18n_redirected', language)
  const keep = async (name: string, res: Response, status: number) => {
    expect(res.status, name).toBe(status)
    pages.set(`${language}-${name}`, await res.text())
  }
  const follow = async (name: string, res: Response) => {
    expect(res.status, name).toBe(303)
    await keep(name, await browser.get(res.headers.get('location')!), 200)
  }
  const email = uniqueEmail(`html-${language}`)
  await admin.createUser(email, PASSWORD)

  await keep('sign-in', await browser.get('/'), 200)
  await keep('sign-in-bad-redirect', await browser.get('/?redirect=javascript%3Aalert(1)'), 200)
  await keep('sign-in-empty', await browser.post('/?index', { email: '', password: '' }), 400)
  await keep('sign-in-wrong', await browser.post('/?index', { email, password: 'Wrong-Pass-1234' }), 400)
  await follow('email-link-sent', await browser.post('/?index', { email, intent: 'email-link' }))
  // "Send the link again" before its wait: the limit's message on the same page (ADR 083).
  await keep('email-link-resend-too-soon', await browser.post('/?index&emailLink=sent', { intent: 'resend' }, '/?emailLink=sent'), 429)
  await keep('forgot', await browser.get('/forgot-password'), 200)
  await keep('forgot-invalid', await browser.post('/forgot-password', { email: 'not-an-email' }, '/forgot-password'), 400)
  await follow('forgot-sent', await browser.post('/forgot-password', { email }, '/forgot-password'))
  // "Send the email again" before its wait: the limit's message on the same page (ADR 075).
  await keep('forgot-resend-too-soon', await browser.post('/forgot-password?sent=1', { intent: 'resend' }, '/forgot-password?sent=1'), 429)
  await keep('new-password-invalid-link', await browser.get('/new-password'), 400)
  await keep('action-invalid-link', await browser.get('/action'), 400)
  await keep('action-missing-mode', await browser.get('/action?mode=verifyEmail'), 400)
  await keep('not-found', await browser.get('/nope/nothing-here'), 404)
  // Error pages of statuses refused before React Router (rendered without scripts) and by a form's guard.
  await keep('uri-too-long', await browser.get(`/?q=${'a'.repeat(9000)}`), 414)
  await keep('body-too-large', await browser.post('/forgot-password', { email: 'a'.repeat(20_000) }, '/forgot-password'), 413)
  await keep('logout-signed-out', await browser.get('/logout'), 200)
  // Create an account (ADR 066): the form, an address and a password refused, the email on its way; turned off.
  await keep('sign-up', await browser.get('/sign-up'), 200)
  const refused = { email: 'not-an-email', password: 'abc', confirmation: 'abd' }
  await keep('sign-up-invalid', await browser.post('/sign-up', refused, '/sign-up'), 400)
  const created = { email: uniqueEmail(`html-sign-up-${language}`), password: PASSWORD, confirmation: PASSWORD }
  await follow('sign-up-sent', await browser.post('/sign-up', created, '/sign-up'))
  const off = new HttpBrowser(signUpOffPortal.url)
  off.plant('i18n_redirected', language)
  // The project's first refusal turns the form off (for the next language's round too).
  if ((await off.get('/sign-up')).status === 200) expect((await off.post('/sign-up', created, '/sign-up')).status).toBe(303)
  await waitFor('sign-up turned off', async () => (await off.get('/sign-up')).status === 403, 15_000)
  await keep('sign-up-turned-off', await off.get('/sign-up'), 403)

  const code = (await admin.emailed(email, 'PASSWORD_RESET')).oobCode
  expect((await browser.get(`/new-password?oobCode=${encodeURIComponent(code)}&lang=${language}`)).status).toBe(302)
  await keep('new-password', await browser.get(`/new-password?lang=${language}`), 200)
  await keep('new-password-mismatch', await browser.post('/new-password', { password: 'Abcdef-12345', confirmation: 'Other' }, '/new-password'), 400)
  await keep('new-password-weak', await browser.post('/new-password', { password: 'abc', confirmation: 'abc' }, '/new-password'), 400)
  const chosen = 'Brand-New-Pass-2026'
  await follow('new-password-done', await browser.post('/new-password', { password: chosen, confirmation: chosen }, '/new-password'))

  const signIn = await browser.post('/?index', { email, password: chosen })
  await follow('signed-in', signIn)
  await keep('logout-signed-in', await browser.get('/logout'), 200)
  // The account pages (ADR 036): the page, "Confirm it's you" and its refusal, the password form and its errors.
  await keep('account', await browser.get('/account'), 200)
  // Right after signing in, the sign-in itself is recent (ADR 036): the form, no confirmation asked.
  expect((await browser.get('/account/password')).status, 'password right after signing in').toBe(200)
  await keep('account-confirm', await browser.get('/account/confirm?next=%2Faccount%2Fpassword'), 200)
  const confirmPage = '/account/confirm?next=%2Faccount%2Fpassword'
  await keep('account-confirm-empty', await browser.post(confirmPage, { password: '' }, confirmPage), 400)
  await keep('account-confirm-wrong', await browser.post(confirmPage, { password: 'Wrong-Pass-1234' }, confirmPage), 400)
  await follow('account-password', await browser.post(confirmPage, { password: chosen }, confirmPage))
  await follow('account-verification-sent', await browser.post('/account', { intent: 'verify' }, '/account'))
  const verificationSent = '/account?verification=sent'
  await keep('account-verification-too-soon', await browser.post(verificationSent, { intent: 'resend' }, verificationSent), 429)
  await keep('account-email', await browser.get('/account/email'), 200)
  await keep('account-email-invalid', await browser.post('/account/email', { email: 'not-an-email' }, '/account/email'), 400)
  await follow('account-email-sent', await browser.post('/account/email', { email: uniqueEmail('html-new') }, '/account/email'))
  const changeSent = '/account/email?sent=1'
  await keep('account-email-resend-too-soon', await browser.post(changeSent, { intent: 'resend' }, changeSent), 429)
  await keep('account-delete', await browser.get('/account/delete'), 200)
  await keep('account-delete-mismatch', await browser.post('/account/delete', { email: 'someone@example.com' }, '/account/delete'), 400)
  await keep('account-deleted', await browser.get('/account/delete?deleted'), 200)
  const passwordPage = '/account/password'
  await keep('account-password-mismatch', await browser.post(passwordPage, { password: 'Abcdef-12345', confirmation: 'Other' }, passwordPage), 400)
  await follow('account-password-done', await browser.post(passwordPage, { password: 'Newer-Pass-2026', confirmation: 'Newer-Pass-2026' }, passwordPage))

  // The second factor (ADR 022): the chooser, the code step, a wrong code.
  const mfaEmail = uniqueEmail(`html-mfa-${language}`)
  const { localId } = await admin.createUser(mfaEmail, PASSWORD)
  const phone = (last: number) => `+1555${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}${last}`
  const [work] = await admin.enrollSms(localId, [
    { phoneNumber: phone(1), displayName: 'Travail' },
    { phoneNumber: phone(2) },
  ])
  const mfa = new HttpBrowser(portal.url)
  mfa.plant('i18n_redirected', language)
  expect((await mfa.post('/?index', { email: mfaEmail, password: PASSWORD })).status).toBe(303)
  await keep('second-factor-chooser', await mfa.get('/second-factor'), 200)
  const chose = await mfa.post('/second-factor', { intent: 'choose', factor: work!.mfaEnrollmentId }, '/second-factor')
  expect(chose.status).toBe(303)
  await keep('second-factor-code', await mfa.get('/second-factor'), 200)
  const sent = (await admin.lastSmsCode(work!.phoneNumber))!
  const wrong = `${sent.slice(0, 5)}${(Number(sent[5]) + 1) % 10}`
  await keep('second-factor-wrong-code', await mfa.post('/second-factor', { code: wrong }, '/second-factor'), 400)

  // Single sign-on: the variant's sign-in page; an account of the provider confirms through it, or
  // another account comes back.
  const sso = new HttpBrowser(ssoPortal.url)
  sso.plant('i18n_redirected', language)
  await keep('sign-in-sso', await sso.get('/'), 200)
  const answer = async (start: Response, claims: Record<string, unknown>) =>
    sso.get(providerAnswer(providerStart(start), claims, 'google.com', emulator.origin))
  expect((await answer(await sso.post('/sso/start', {}), claimsFor(uniqueEmail('html-sso')))).status).toBe(303)
  const confirmSso = '/account/confirm?next=%2Faccount%2Fdelete'
  await keep('account-confirm-provider', await sso.get(confirmSso), 200)
  const other = await sso.post('/sso/start', { intent: 'confirm', next: '/account/delete' }, confirmSso)
  await follow('account-confirm-mismatch', await answer(other, claimsFor(uniqueEmail('html-sso-other'))))
  const withFactors = await mfa.post('/second-factor', { code: sent }, '/second-factor')
  expect(withFactors.status).toBe(303)
  await keep('account-second-factors', await mfa.get('/account'), 200)

  // Second factors the owner manages (ADR 041): adding an authenticator app, a wrong code, removing the last factor.
  const owner = new HttpBrowser(totpPortal.url)
  owner.plant('i18n_redirected', language)
  const ownerEmail = uniqueEmail(`html-totp-${language}`)
  const owned = await admin.createUser(ownerEmail, PASSWORD)
  // No factor; the address marked verified, as enrolment demands.
  await admin.enrollSms(owned.localId, [])
  expect((await owner.post('/?index', { email: ownerEmail, password: PASSWORD })).status).toBe(303)
  const totpPage = '/account/second-factor/totp'
  const confirmTotp = `/account/confirm?next=${encodeURIComponent(totpPage)}`
  expect((await owner.post(confirmTotp, { password: PASSWORD }, confirmTotp)).status).toBe(303)
  const fresh = await owner.get(totpPage)
  const html = await fresh.clone().text()
  await keep('totp', fresh, 200)
  const secret = /<code>([A-Z2-7 ]+)<\/code>/.exec(html)![1]!.replace(/ /g, '')
  const right = totpCode(secret)
  await keep('totp-wrong-code', await owner.post(totpPage, { code: right === '000000' ? '111111' : '000000' }, totpPage), 400)
  const added = await owner.post(totpPage, { code: totpCode(secret), name: 'Téléphone' }, totpPage)
  expect(added.status).toBe(303)
  const accountPage = await (await owner.get(added.headers.get('location')!)).text()
  pages.set(`${language}-account-totp-added`, accountPage)
  const factor = /name="factor" value="([^"]+)"/.exec(accountPage)![1]!
  await keep('remove-last-factor', await owner.get(`/account/second-factor/remove?factor=${factor}`), 200)

  // Adding a phone (ADR 042): an unverified address, the number, a bad one, the code, a wrong one, the resend wait.
  const phonePage = '/account/second-factor/phone'
  const phoneEmail = uniqueEmail(`html-phone-${language}`)
  const phoneUser = await admin.createUser(phoneEmail, PASSWORD)
  const adder = new HttpBrowser(portal.url)
  adder.plant('i18n_redirected', language)
  expect((await adder.post('/?index', { email: phoneEmail, password: PASSWORD })).status).toBe(303)
  await keep('phone-unverified', await adder.get(phonePage), 200)
  await admin.verifyEmail(phoneUser.localId)
  const confirmPhone = `/account/confirm?next=${encodeURIComponent(phonePage)}`
  expect((await adder.post(confirmPhone, { password: PASSWORD }, confirmPhone)).headers.get('location')).toBe(phonePage)
  await keep('phone-number', await adder.get(phonePage), 200)
  await keep('phone-bad-number', await adder.post(phonePage, { phone: '06 12' }, phonePage), 400)
  const number = phone(3)
  expect((await adder.post(phonePage, { phone: number }, phonePage)).headers.get('location')).toBe(phonePage)
  await keep('phone-code', await adder.get(phonePage), 200)
  const enrolCode = (await admin.lastSmsCode(number))!
  const wrongEnrolCode = `${enrolCode.slice(0, 5)}${(Number(enrolCode[5]) + 1) % 10}`
  await keep('phone-wrong-code', await adder.post(phonePage, { code: wrongEnrolCode }, phonePage), 400)
  await keep('phone-resend-wait', await adder.post(phonePage, { intent: 'resend' }, phonePage), 429)

  // Passkeys (ADR 067): the account's section with one, the add page, the remove page.
  const enrolled = await fetch(`${emulator.origin}/identitytoolkit.googleapis.com/v2/accounts/passkeyEnrollment:finalize?key=k`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ idToken: phoneUser.idToken, name: 'Téléphone', authenticatorRegistrationResponse: { id: `html-${language}-${Date.now()}` } }),
  })
  expect(enrolled.status).toBe(200)
  const withPasskey = await (await adder.get('/account')).text()
  pages.set(`${language}-account-passkey`, withPasskey)
  const ref = /name="passkey" value="([^"]+)"/.exec(withPasskey)![1]!
  await keep('passkey-add', await adder.get('/account/passkeys/add'), 200)
  await keep('passkey-remove', await adder.get(`/account/passkeys/remove?passkey=${ref}`), 200)
  return pages
}

it('every page state is valid HTML in both languages (Nu Html Checker)', { timeout: 120_000 }, async () => {
  const pages = new Map<string, string>()
  for (const language of ['fr', 'en'] as const) for (const [name, html] of await pageStates(language)) pages.set(name, html)
  expect(pages.size).toBe(126)
  expect(await htmlErrors(pages)).toEqual([])
})
