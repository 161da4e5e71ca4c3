import type { Page } from '@playwright/test'
import { uniqueEmail } from '../../dev/emulator'
import { COMMON_LABELS, expect, signIn, test } from './fixtures'

/**
 * "Change password" on the account page holds a new password to the rules of /new-password, with
 * the same form: checked before sending with JavaScript, each unmet rule named in the checklist by
 * the server's answer without it. Every account is new.
 */

const PASSWORD = 'Correct-Horse-42'

const LABELS = {
  en: {
    ...COMMON_LABELS.en,
    login: 'Login',
    confirmTitle: "Confirm it's you",
    title: 'Change password',
    newPassword: 'New password',
    confirm: 'Confirm new password',
    submit: 'Change password',
    tooFewClasses: 'Your password must mix at least 3 of the 4 types of characters.',
    classes: /^at least 3 of 4 character types/,
    upper: /^upper case A-Z/,
    length: /^at least 12 characters/,
    met: '(met)',
    notMet: '(not met)',
    guessable: 'Too easy to guess: a common word or password, even with capitals, digits or symbols added.',
    guess: /^nothing easy to guess/,
  },
  fr: {
    ...COMMON_LABELS.fr,
    login: 'Se connecter',
    confirmTitle: 'Confirmez votre identité',
    title: 'Modifier le mot de passe',
    newPassword: 'Nouveau mot de passe',
    confirm: 'Confirmer le nouveau mot de passe',
    submit: 'Modifier le mot de passe',
    tooFewClasses: 'Votre mot de passe doit mélanger au moins 3 des 4 types de caractères.',
    classes: /^au moins 3 des 4 types de caractères/,
    upper: /^majuscules A-Z/,
    length: /^au moins 12 caractères/,
    met: '(respecté)',
    notMet: '(non respecté)',
    guessable:
      'Trop facile à deviner\u00a0: un mot ou un mot de passe courant, même avec des majuscules, des chiffres ou des symboles ajoutés.',
    guess: /^rien de facile à deviner/,
  },
} as const

type Labels = (typeof LABELS)[keyof typeof LABELS]

/** A description that starts with `text`, whatever follows (the checklist). */
const startsWith = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)

/** Fills both fields with `password`, sends, and counts the POSTs the page made from then on. */
async function send(page: Page, l: Labels, password: string): Promise<string[]> {
  const posts: string[] = []
  page.on('request', (request) => {
    if (request.method() === 'POST') posts.push(request.url())
  })
  await page.getByLabel(l.newPassword, { exact: true }).fill(password)
  await page.getByLabel(l.confirm, { exact: true }).fill(password)
  await page.getByRole('button', { name: l.submit }).click()
  return posts
}

/** Signs a new account in towards /account/password, through "Confirm it's you". */
async function openChangePassword(page: Page, admin: { createUser(email: string, password: string): Promise<unknown> }, l: Labels) {
  const email = uniqueEmail('account-rules')
  await admin.createUser(email, PASSWORD)
  await signIn(page, email, PASSWORD, '/?redirect=%2Faccount%2Fpassword')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.confirmTitle)
  await page.getByLabel(l.password, { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: l.continue }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(l.title)
  return email
}

for (const [language, l] of Object.entries(LABELS)) {
  test.describe(`in ${language}`, () => {
    test.use({ locale: language === 'en' ? 'en-US' : 'fr-FR' })

    test('with JavaScript a weak password is refused before anything is sent, both fields kept @js-only', async ({
      page,
      admin,
    }) => {
      await openChangePassword(page, admin, l)
      const posts: string[] = []
      page.on('request', (request) => {
        if (request.method() === 'POST') posts.push(request.url())
      })
      const password = page.getByLabel(l.newPassword, { exact: true })
      const confirmation = page.getByLabel(l.confirm, { exact: true })
      await password.fill('abcdefghijklmno')
      await confirmation.fill('abcdefghijklmno')
      await page.getByRole('button', { name: l.submit }).click()
      await expect(password).toHaveAttribute('aria-invalid', 'true')
      await expect(password).toHaveAccessibleDescription(startsWith(l.tooFewClasses))
      await expect(password).toBeFocused()
      await expect(password).toHaveValue('abcdefghijklmno')
      await expect(confirmation).toHaveValue('abcdefghijklmno')
      const rules = page.getByRole('list').first()
      await expect(rules.getByRole('listitem').filter({ hasText: l.upper })).toContainText(l.notMet)
      expect(posts, 'nothing was sent').toEqual([])
    })

    test('without JavaScript the answer names each unmet rule in the checklist @no-js-only', async ({ page, admin }) => {
      await openChangePassword(page, admin, l)
      await page.getByLabel(l.newPassword, { exact: true }).fill('abcdefghijklmno')
      await page.getByLabel(l.confirm, { exact: true }).fill('abcdefghijklmno')
      await page.getByRole('button', { name: l.submit }).click()
      await expect(page.getByText(l.tooFewClasses)).toBeVisible()
      await expect(page.getByLabel(l.newPassword, { exact: true })).toHaveValue('')
      expect(await page.content()).not.toContain('abcdefghijklmno')
      const rules = page.getByRole('list').first()
      const item = (start: RegExp) => rules.getByRole('listitem').filter({ hasText: start })
      await expect(item(l.length)).toContainText(l.met)
      await expect(item(l.classes)).toContainText(l.notMet)
      await expect(item(l.upper)).toContainText(l.notMet)
    })

    test('"Password1234!" is refused as too easy to guess, saying why, in the checklist too', async ({
      page,
      admin,
      javaScriptEnabled,
    }) => {
      await openChangePassword(page, admin, l)
      const posts = await send(page, l, 'Password1234!')
      const password = page.getByLabel(l.newPassword, { exact: true })
      await expect(password).toHaveAccessibleDescription(startsWith(l.guessable))
      const guess = page.getByRole('list').first().getByRole('listitem').filter({ hasText: l.guess })
      await expect(guess).toContainText(l.notMet)
      // With JavaScript the page knew before sending; without it, the server said so.
      if (javaScriptEnabled) expect(posts, 'nothing was sent').toEqual([])
      else expect(posts).toHaveLength(1)
    })
  })
}
