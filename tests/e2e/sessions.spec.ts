import { uniqueEmail } from '../../dev/emulator'
import { type Admin, expect, ownPortal, signIn, testOn, oneModePerLanguage } from './fixtures'

/**
 * "Where you're signed in" on /account (ADR 063): each browser signed in is listed with its device,
 * this one marked "This browser"; "End session" on another signs that one out and leaves this one.
 * And the recent-sign-in rule at its default length: right after signing in, "Send verification
 * email" sends at once; past the window, "Confirm it's you" asks. JavaScript on and off, en and fr.
 */

/**
 * The default window is 5 minutes. This portal's is long enough for a sign-in and a press on a busy
 * machine; the second one's is short enough to wait out in a test.
 */
const RECENT_SECONDS = 8
const test = testOn(ownPortal(() => ({ RECENT_SIGN_IN_SECONDS: String(RECENT_SECONDS) })))
const SHORT_RECENT_SECONDS = 2
const testShortWindow = testOn(ownPortal(() => ({ RECENT_SIGN_IN_SECONDS: String(SHORT_RECENT_SECONDS) })))
test.describe.configure({ timeout: 60_000 })

const PASSWORD = 'Correct-Horse-42'
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0'
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 19_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/19.1 Mobile/15E148 Safari/604.1'

const LABELS = {
  en: {
    section: "Where you're signed in",
    thisBrowser: 'This browser',
    firefox: 'Firefox 153 on Linux',
    iphone: 'Safari 19 on iOS',
    end: /^End session on Safari 19 on iOS, signed in /,
    ended: 'The session has ended: that browser is signed out.',
    account: 'Your account',
    signInTitle: 'Sign In',
    sendVerification: 'Send verification email',
    sent: 'A verification link is on its way to your address. Open it to confirm the address.',
    confirm: "Confirm it's you",
  },
  fr: {
    section: 'Vos sessions ouvertes',
    thisBrowser: 'Ce navigateur',
    firefox: 'Firefox 153 sur Linux',
    iphone: 'Safari 19 sur iOS',
    end: /^Fermer la session sur Safari 19 sur iOS, ouverte le /,
    ended: 'La session est fermée\u00a0: ce navigateur n’y a plus accès.',
    account: 'Votre compte',
    signInTitle: 'Connexion',
    sendVerification: 'Vérifier l’adresse',
    sent: 'Un lien de vérification est en route vers votre adresse. Ouvrez-le pour confirmer l’adresse.',
    confirm: 'Confirmez votre identité',
  },
} as const

async function verificationEmails(admin: Admin, email: string): Promise<number> {
  return (await admin.oobCodes()).filter((c) => c.email === email && c.requestType === 'VERIFY_EMAIL').length
}

for (const [lang, l] of Object.entries(LABELS)) {
  test.describe(`in ${lang}`, oneModePerLanguage(lang), () => {
    test.use({ locale: lang === 'fr' ? 'fr-FR' : 'en-US', userAgent: FIREFOX })

    test('two browsers are listed by device, this one marked; "End session" signs the other out and leaves this one', async ({
      page,
      admin,
      anotherBrowser,
    }) => {
      const email = uniqueEmail(`sessions-${lang}`)
      await admin.createUser(email, PASSWORD)
      const phone = await anotherBrowser({ userAgent: IPHONE })
      await signIn(phone.page, email, PASSWORD, '/account')
      await expect(phone.page.getByRole('heading', { level: 1 })).toHaveText(l.account)
      await signIn(page, email, PASSWORD, '/account')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)

      const list = page.getByRole('list', { name: l.section })
      await expect(page.getByRole('heading', { name: l.section })).toBeVisible()
      await expect(list.getByRole('listitem')).toHaveCount(2)
      const mine = list.getByRole('listitem').filter({ hasText: l.thisBrowser })
      await expect(mine).toHaveCount(1)
      await expect(mine).toContainText(l.firefox)
      await expect(mine.getByRole('button')).toHaveCount(0)
      const other = list.getByRole('listitem').filter({ hasText: l.iphone })
      await expect(other).not.toContainText(l.thisBrowser)
      // The other browser sees itself as "This browser".
      await phone.page.reload()
      await expect(
        phone.page.getByRole('list', { name: l.section }).getByRole('listitem').filter({ hasText: l.thisBrowser }),
      ).toContainText(l.iphone)

      await other.getByRole('button', { name: l.end }).click()
      await expect(page.getByRole('status')).toHaveText(l.ended)
      await expect(list.getByRole('listitem')).toHaveCount(1)
      await expect(list.getByRole('listitem')).toContainText(l.thisBrowser)
      // That browser is signed out at its next page; this one stays.
      await phone.page.goto('/account')
      await expect(phone.page.getByRole('heading', { level: 1 })).toHaveText(l.signInTitle)
      await page.reload()
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
    })

    test('right after signing in, one press of "Send verification email" sends exactly one', async ({ page, admin }) => {
      const email = uniqueEmail(`recent-${lang}`)
      await admin.createUser(email, PASSWORD)
      await signIn(page, email, PASSWORD, '/account')
      await page.getByRole('button', { name: l.sendVerification }).click()
      await expect(page.getByRole('status')).toHaveText(l.sent)
      await expect.poll(() => verificationEmails(admin, email)).toBe(1)
      await page.waitForTimeout(500)
      expect(await verificationEmails(admin, email)).toBe(1)
    })

    testShortWindow('past the recent window, "Confirm it\'s you" asks first', async ({ page, admin }) => {
      const email = uniqueEmail(`not-recent-${lang}`)
      await admin.createUser(email, PASSWORD)
      await signIn(page, email, PASSWORD, '/account')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.account)
      await page.waitForTimeout((SHORT_RECENT_SECONDS + 1) * 1_000)
      await page.getByRole('button', { name: l.sendVerification }).click()
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.confirm)
      expect(await verificationEmails(admin, email)).toBe(0)
    })
  })
}
