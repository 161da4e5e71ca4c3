import { describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { HttpBrowser } from '../support/http-browser'
import { ownPortal } from '../support/portal'

/**
 * The pages that say an email went, besides the reset page (tests/e2e/check-email.spec.ts), in a
 * browser without JavaScript (ADR 083): each keeps its neutral sentence and shows the address,
 * where else to look, and a way to have it sent again. "Send … again" pressed within the wait
 * gets the limits' own message, saying when; after the wait (RESEND_WAIT_SECONDS, 8 s on this
 * portal, waited out once for all) it sends, through the first send's limits. Sign-up keeps no
 * password: it shows the way to sign in.
 */
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Check-Email-Pass-2026'
const SPAM = 'Nothing after a few minutes? Look in your spam or junk folder.'
const TOO_SOON = /Too many attempts\. You can try again at <time date[tT]ime="[^"]+">[^<]+ UTC<\/time>\./

const RESEND_WAIT_SECONDS = 8
const portal = ownPortal({
  FLAG_SIGN_UP: 'true',
  FLAG_EMAIL_LINK_SIGN_IN: 'true',
  LOG_LEVEL: 'warn',
  RESEND_WAIT_SECONDS: String(RESEND_WAIT_SECONDS),
})

/** The page's words, without its tags. */
const textOf = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, '').replaceAll('&#x27;', "'").replaceAll('&amp;', '&')

/** Where the page's "Send … again" form posts, and its hidden fields. */
function resendForm(html: string): { action: string; fields: Record<string, string> } {
  const form = [...html.matchAll(/<form[^>]*>[\s\S]*?<\/form>/g)].map((m) => m[0]).find((f) => f.includes('value="resend"'))
  if (!form) throw new Error('no "send again" form on the page')
  const action = /action="([^"]*)"/.exec(form)?.[1]?.replaceAll('&amp;', '&') ?? ''
  const fields: Record<string, string> = { intent: 'resend' }
  for (const [, name, value] of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
    if (name !== 'csrf') fields[name!] = value!.replaceAll('&amp;', '&')
  return { action, fields }
}

async function count(email: string, requestType: string): Promise<number> {
  return (await admin.oobCodes()).filter((c) => c.email === email && c.requestType === requestType).length
}

async function emailedTimes(email: string, requestType: string, times: number) {
  await admin.emailed(email, requestType, { after: times - 1 })
  await new Promise((resolve) => setTimeout(resolve, 300))
  expect(await count(email, requestType)).toBe(times)
}

const english = () => new HttpBrowser(portal.url, { headers: { 'Accept-Language': 'en' } })

/** A browser on a page that says an email went: how to press "Send … again", and what it sends. */
interface Sent {
  browser: HttpBrowser
  page: string
  email: string
  requestType: string
  heading: string
}
const sentPages: Sent[] = []

/** Within the wait: 429, the limits' message, the same page; nothing more sent. */
async function tooSoon({ browser, page, email, requestType }: Sent, words: string) {
  const { action, fields } = resendForm(browser.html)
  expect(browser.html).toMatch(/aria-disabled="true"[^>]*>[^<]*again(<!-- -->)? \(0:[0-3]\d\)/)
  const res = await browser.submit(action, fields, { remember: true })
  expect(res.status).toBe(429)
  expect(res.html).toMatch(TOO_SOON)
  expect(textOf(res.html)).toContain(words)
  await browser.load(page)
  expect(await count(email, requestType)).toBe(1)
}

describe('a page that says an email went shows the address, the spam folder, and sends again after the wait', () => {
  it('the sign-in link', async () => {
    const email = uniqueEmail('check-link')
    await admin.createUser(email, PASSWORD)
    const browser = await english().load('/')
    const typed = ` ${email.toUpperCase()} `
    const res = await browser.submit('/?index', { intent: 'email-link', email: typed, redirect: 'http://localhost:9/after' }, { remember: true })
    expect(res.status).toBe(303)
    const page = res.headers.get('location')!
    expect(page).toBe('/?emailLink=sent&redirect=http%3A%2F%2Flocalhost%3A9%2Fafter')
    expect(page).not.toContain('check-link')
    await browser.load(page)
    const text = textOf(browser.html)
    expect(text).toContain('If this email address is valid, you will receive an email with a link to sign in.')
    expect(text).toContain(`Address you typed: ${typed.trim()}`)
    expect(text).toContain(SPAM)
    expect(text).toContain('Send the link again')
    expect(resendForm(browser.html).fields.redirect).toBe('http://localhost:9/after')
    await emailedTimes(email, 'EMAIL_SIGNIN', 1)
    const sent = { browser, page, email, requestType: 'EMAIL_SIGNIN', heading: 'Check your email' }
    await tooSoon(sent, `Address you typed: ${typed.trim()}`)
    sentPages.push(sent)
  })

  it('the email verification, from the account page', async () => {
    const email = uniqueEmail('check-verify')
    await admin.createUser(email, PASSWORD)
    const browser = await english().load('/')
    expect((await browser.signIn(email, PASSWORD, { remember: true })).status).toBe(303)
    await browser.load('/account')
    const res = await browser.submit('/account', { intent: 'verify' }, { remember: true })
    expect(res.status).toBe(303)
    const page = res.headers.get('location')!
    expect(page).toBe('/account?verification=sent')
    await browser.load(page)
    const text = textOf(browser.html)
    expect(text).toContain('A verification link is on its way to your address. Open it to confirm the address.')
    expect(text).toContain(`Sent to: ${email}`)
    expect(text).toContain(SPAM)
    expect(text).toContain('Send the email again')
    await emailedTimes(email, 'VERIFY_EMAIL', 1)
    const sent = { browser, page, email, requestType: 'VERIFY_EMAIL', heading: 'Your account' }
    await tooSoon(sent, `Sent to: ${email}`)
    sentPages.push(sent)
  })

  it('the change of address', async () => {
    const email = uniqueEmail('check-change')
    const { localId } = await admin.createUser(email, PASSWORD)
    await admin.verifyEmail(localId)
    const browser = await english().load('/')
    expect((await browser.signIn(email, PASSWORD, { remember: true })).status).toBe(303)
    expect((await browser.confirm(PASSWORD, '/account/email')).headers.get('location')).toBe('/account/email')
    const newEmail = uniqueEmail('check-change-new')
    await browser.load('/account/email')
    const res = await browser.submit('/account/email', { email: `  ${newEmail}` }, { remember: true })
    expect(res.status).toBe(303)
    const page = res.headers.get('location')!
    expect(page).toBe('/account/email?sent=1')
    await browser.load(page)
    const text = textOf(browser.html)
    expect(text).toContain('If this address can be used, a confirmation link is on its way to it. Open it to change your sign-in address.')
    expect(text).toContain(`Address you typed: ${newEmail}`)
    expect(text).toContain(SPAM)
    expect(text).toContain('Send the link again')
    await emailedTimes(email, 'VERIFY_AND_CHANGE_EMAIL', 1)
    const sent = { browser, page, email, requestType: 'VERIFY_AND_CHANGE_EMAIL', heading: 'Change email address' }
    await tooSoon(sent, `Address you typed: ${newEmail}`)
    sentPages.push(sent)
  })

  it('after the wait, each sends again, and starts a new wait', { timeout: 60_000 }, async () => {
    expect(sentPages).toHaveLength(3)
    await new Promise((resolve) => setTimeout(resolve, (RESEND_WAIT_SECONDS + 1) * 1000))
    for (const sent of sentPages) {
      await sent.browser.load(sent.page)
      const { action, fields } = resendForm(sent.browser.html)
      const res = await sent.browser.submit(action, fields, { remember: true })
      expect(res.status, sent.requestType).toBe(303)
      expect(res.headers.get('location'), sent.requestType).toBe(sent.page)
      await emailedTimes(sent.email, sent.requestType, 2)
      await sent.browser.load(sent.page)
      expect(textOf(sent.browser.html)).toContain(SPAM)
      expect(sent.browser.html).toMatch(/aria-disabled="true"[^>]*>[^<]*again(<!-- -->)? \(0:[0-3]\d\)/)
    }
  })

  it('sign-up: the address as typed, the spam folder, and the way to have it sent again; the same page for an address with an account', async () => {
    const known = uniqueEmail('check-sign-up-known')
    await admin.createUser(known, PASSWORD)
    const pages: string[] = []
    for (const email of [known, uniqueEmail('check-sign-up-new')]) {
      const browser = await english().load('/sign-up')
      const res = await browser.submit('/sign-up', { email, password: PASSWORD, confirmation: PASSWORD }, { remember: true })
      expect(res.status).toBe(303)
      expect(res.headers.get('location')).toBe('/sign-up?sent=1')
      await browser.load('/sign-up?sent=1')
      const text = textOf(browser.html)
      expect(text).toContain('Check your email to finish creating your account')
      expect(text).toContain(`Address you typed: ${email}`)
      expect(text).toContain(SPAM)
      expect(text).toContain(
        'No email, or the link has expired? Sign in with the password you chose: your account page sends the verification email again.',
      )
      expect(browser.html).not.toContain('value="resend"')
      pages.push(text.replaceAll(email, 'EMAIL'))
    }
    expect(pages[0]).toEqual(pages[1])
  })

  it('in French, the words of the specification stay, with the address and the spam folder', async () => {
    const email = uniqueEmail('check-fr')
    const browser = await new HttpBrowser(portal.url, { headers: { 'Accept-Language': 'fr' } }).load('/')
    const res = await browser.submit('/?index', { intent: 'email-link', email }, { remember: true })
    await browser.load(res.headers.get('location')!)
    const text = textOf(browser.html)
    expect(text).toContain('Adresse saisie\u00a0: ' + email)
    expect(text).toContain('Rien reçu après quelques minutes\u202f? Regardez dans le dossier des courriers indésirables (spam).')
    expect(text).toContain('Renvoyer le lien')
  })
})
