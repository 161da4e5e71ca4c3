import type { Browser } from 'puppeteer-core'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail, uniquePhone } from '../../dev/emulator'
import { launchFirefox, Tab } from '../support/firefox'
import { COMMON_LABELS } from '../support/labels'

/**
 * The flows in Firefox ESR (ADR 070), with JavaScript on and off, in French (the browser's language)
 * and in English (chosen with the language switch): one Firefox per JavaScript setting, a browser
 * context per test. The French flows run at 320 px under a classic 12 px scrollbar, the English
 * ones at 1280. A console error or an uncaught exception fails the test.
 */
const portal = inject('portal')
const admin = emulatorAdmin(inject('emulator'))
const password = () => `Firefox-${Math.random().toString(36).slice(2, 8)}-Lanterne-42`

const WORDS = {
  fr: {
    ...COMMON_LABELS.fr,
    changePassword: 'Modifier le mot de passe',
    newPassword: 'Nouveau mot de passe',
    confirmPassword: 'Confirmer le nouveau mot de passe',
    passwordChanged: 'Votre mot de passe a été modifié.',
    sendEmail: 'Envoyer le courriel',
    resetDone: 'Votre mot de passe a été modifié avec succès',
    code: 'Code de vérification',
    brand: 'Portail d’authentification',
  },
  en: {
    ...COMMON_LABELS.en,
    changePassword: 'Change password',
    newPassword: 'New password',
    confirmPassword: 'Confirm new password',
    passwordChanged: 'Your password has been changed.',
    sendEmail: 'Send email',
    resetDone: 'Your password has been modified successfully!',
    code: 'Verification code',
    brand: 'Authentication portal',
  },
} as const
type Lang = keyof typeof WORDS

/** A tab on the portal in `lang`: French is the browser's; English is chosen with the switch. */
async function tabIn(browser: Browser, javaScript: boolean, lang: Lang): Promise<Tab> {
  const opened = await Tab.open(browser, portal.url, { javaScript, width: lang === 'fr' ? 320 : 1280 })
  await opened.goto('/')
  if (lang === 'en') {
    await opened.press('English')
    await opened.waitFor(WORDS.en.signIn)
  }
  expect((await opened.lang()).slice(0, 2)).toBe(lang)
  return opened
}

async function signIn(tab: Tab, lang: Lang, email: string, secret: string) {
  const w = WORDS[lang]
  await tab.goto('/')
  await tab.fill(w.email, email)
  await tab.fill(w.password, secret)
  await tab.press(w.signIn)
}

let tab: Tab | undefined
afterEach(async () => {
  const errors = (await tab?.reportedErrors()) ?? []
  await tab?.close()
  tab = undefined
  expect(errors, 'console errors and uncaught exceptions').toEqual([])
})

for (const javaScript of [true, false]) {
  describe(`Firefox with JavaScript ${javaScript ? 'on' : 'off'}`, () => {
    let browser: Browser
    beforeAll(async () => {
      browser = await launchFirefox({ javaScript })
    }, 60_000)
    afterAll(async () => {
      await browser?.close()
    })

    for (const lang of ['fr', 'en'] as const) {
      const w = WORDS[lang]

      it(`${lang}: signs in, changes the password, logs out`, { timeout: 60_000 }, async () => {
        const email = uniqueEmail('firefox')
        const first = password()
        await admin.createUser(email, first)
        tab = await tabIn(browser, javaScript, lang)
        await signIn(tab, lang, email, first)
        await tab.waitFor(w.signedIn)
        expect(await tab.cookieNames()).toContain('session')

        await tab.press(w.account)
        await tab.waitFor(w.changePassword)
        if (lang === 'fr') {
          // At 320 px, with a classic scrollbar taking 12 px of them: the brand and the labels keep to one line.
          expect(await tab.scrollbarWidth()).toBe(12)
          expect.soft(await tab.linesOf('.logo-name', w.brand), 'the brand').toBe(1)
          expect.soft(await tab.linesOf('main a, main button', w.changePassword), `"${w.changePassword}"`).toBe(1)
        }
        await tab.press(w.changePassword)
        const second = password()
        await tab.fill(w.newPassword, second)
        await tab.fill(w.confirmPassword, second)
        await tab.press(w.changePassword)
        await tab.waitFor(w.passwordChanged)

        await tab.goto('/logout')
        const answers = tab.answers.length
        const result = await tab.press(w.logout)
        await tab.waitFor(w.signedOut)
        expect(await tab.cookieNames()).not.toContain('session')
        if (!javaScript) {
          // Post/redirect/get: the result is a page of its own, which Back and Forward find again.
          expect(tab.answers.slice(answers).join('\n')).toContain('POST 303 /logout')
          expect(result?.request().method()).toBe('GET')
          await tab.page.goBack()
          await tab.page.goForward({ timeout: 5_000 }).catch(() => null)
          expect(tab.page.url()).toBe(`${portal.url}/logout`)
          await tab.waitFor(w.signedOut)
        }
      })

      it(`${lang}: resets a forgotten password through the emailed link`, { timeout: 60_000 }, async () => {
        const email = uniqueEmail('firefox-reset')
        await admin.createUser(email, password())
        tab = await tabIn(browser, javaScript, lang)
        await tab.goto('/forgot-password')
        await tab.fill(w.email, email)
        await tab.press(w.sendEmail)
        await tab.goto(await admin.emailedLink(email, 'PASSWORD_RESET', portal.url))
        const fresh = password()
        await tab.fill(w.newPassword, fresh)
        await tab.fill(w.confirmPassword, fresh)
        await tab.press(w.changePassword)
        await tab.waitFor(w.resetDone)
        await signIn(tab, lang, email, fresh)
        await tab.waitFor(w.signedIn)
      })

      it(`${lang}: signs in with the SMS code of a second factor`, { timeout: 60_000 }, async () => {
        const email = uniqueEmail('firefox-sms')
        const phone = uniquePhone()
        const secret = password()
        const { localId } = await admin.createUser(email, secret)
        await admin.enrollSms(localId, [{ phoneNumber: phone }])
        tab = await tabIn(browser, javaScript, lang)
        await signIn(tab, lang, email, secret)
        await tab.waitFor(w.code)
        const code = await admin.lastSmsCode(phone)
        expect(code).toMatch(/^\d{6}$/)
        await tab.fill(w.code, code!)
        await tab.press(w.verify)
        await tab.waitFor(w.signedIn)
        expect(await tab.cookieNames()).toContain('session')
      })
    }
  })
}

describe('Firefox refusing every cookie, JavaScript on', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launchFirefox({ javaScript: true, cookies: false })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
  })
  const warning = 'Veuillez activer les cookies de ce site dans votre navigateur pour continuer.'

  it('throws nothing on its pages, though storage is refused too', async () => {
    tab = await Tab.open(browser, portal.url, { javaScript: true })
    for (const path of ['/', '/forgot-password', '/logout']) {
      await tab.goto(path)
      await tab.waitFor(warning)
    }
  })

  it('says once, after a refused post, that cookies are needed', async () => {
    tab = await Tab.open(browser, portal.url, { javaScript: true })
    await tab.goto('/')
    await tab.fill(WORDS.fr.email, uniqueEmail('firefox-no-cookies'))
    await tab.fill(WORDS.fr.password, password())
    await tab.press(WORDS.fr.signIn)
    await tab.waitFor(/formulaire n’a pas été envoyé|form was not sent/i)
    const text = await tab.text()
    expect(text.split(warning).length - 1, text).toBe(1)
  })
})
