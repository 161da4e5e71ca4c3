import type { Page } from '@playwright/test'
import { uniqueEmail } from '../../dev/emulator'
import { expect, openNewPassword, signIn, test } from './fixtures'

const PASSWORD = 'Boutons-sur-une-ligne-42'

/** Each button's or button-like link's label, with the number of lines it takes. */
async function labelsOnMoreThanOneLine(page: Page): Promise<string[]> {
  const lines = await page.locator('main button, main .button-link, main a[class*="button"]').evaluateAll((elements) =>
    elements
      .filter((element) => (element as HTMLElement).offsetParent !== null)
      .map((element) => {
        // The lines of its visible text; a label only screen readers get (an icon's) takes none.
        const tops = new Set<number>()
        const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT)
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          if (node.parentElement?.closest('.visually-hidden') || !node.textContent?.trim()) continue
          const range = document.createRange()
          range.selectNodeContents(node)
          for (const rect of range.getClientRects()) tops.add(Math.round(rect.top))
        }
        return `${element.textContent?.trim()}: ${tops.size}`
      })
      .filter((line) => !line.endsWith(': 0')),
  )
  return lines.filter((line) => !line.endsWith(': 1'))
}

// French labels run longest: at 320 px each still fits on one line (ADR 035).
test.describe('French buttons at 320 px', () => {
  test.use({ viewport: { width: 320, height: 800 } })

  test('the sign-in, reset-request and new-password pages', async ({ page, admin }) => {
    const email = uniqueEmail('boutons')
    await admin.createUser(email, PASSWORD)
    for (const path of ['/', '/forgot-password']) {
      await page.goto(path)
      expect(await labelsOnMoreThanOneLine(page), path).toEqual([])
    }
    await openNewPassword(page, admin, email)
    expect(await page.getByRole('button', { name: 'Modifier le mot de passe' }).count()).toBe(1)
    expect(await labelsOnMoreThanOneLine(page), '/new-password').toEqual([])
  })

  test('the signed-in and account pages', async ({ page, admin }) => {
    const email = uniqueEmail('boutons')
    await admin.createUser(email, PASSWORD)
    await signIn(page, email, PASSWORD)
    await page.goto('/')
    expect(await labelsOnMoreThanOneLine(page), 'signed in').toEqual([])
    await page.goto('/account')
    expect(await labelsOnMoreThanOneLine(page), '/account').toEqual([])
  })
})
