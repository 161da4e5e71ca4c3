import type { Page } from '@playwright/test'
import { askForSignInLink, expect, openNewPassword, everyWayPortal, signIn, testOn } from './fixtures'

/**
 * Wherever the visitor's address is shown it is shown whole: it wraps inside the card (no
 * ellipsis, nothing hidden), and the full stop after it never starts a line of its own.
 * A portal of its own with email-link sign-in on, for the link's landing page.
 */

const PASSWORD = 'Correct-Horse-42'

const test = testOn(everyWayPortal)

/** An address as long as real ones get, unique to the test. */
const longAddress = () =>
  `camille.durand.fr.very-long-name-${Math.random().toString(36).slice(2, 8)}@subdomain.example-company.fr`

/**
 * The element showing `email` (found by its text), measured in its block: the block does not
 * overflow, every box of the address lies inside it, and the character after the address (the full
 * stop, when there is one) sits on the same line as the address's last character.
 */
async function expectWhole(page: Page, email: string) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 })
    await test.step(`at ${width} px`, () => expectWholeNow(page, email))
  }
}

/** Phones (where a line holds a few words, every 8 px, so the full stop gets its chances to fall alone) and a desktop. */
const WIDTHS = [...Array.from({ length: 26 }, (_, i) => 320 + 8 * i), 1280]

async function expectWholeNow(page: Page, email: string) {
  const element = page.getByText(email).last()
  await expect(element).toBeVisible()
  await expect(element).toContainText(email)
  const found = await element.evaluate((node, address) => {
    let block: Element = node
    while (getComputedStyle(block).display === 'inline' && block.parentElement) block = block.parentElement
    const frame = block.getBoundingClientRect()
    // The address's characters, as text nodes in document order.
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT)
    const chars: Array<{ text: Text; offset: number }> = []
    let all = ''
    for (let text = walker.nextNode() as Text | null; text; text = walker.nextNode() as Text | null) {
      for (let i = 0; i < text.data.length; i++) chars.push({ text, offset: i })
      all += text.data
    }
    const start = all.indexOf(address)
    const rectOf = (index: number) => {
      const range = document.createRange()
      const at = chars[index]!
      range.setStart(at.text, at.offset)
      range.setEnd(at.text, at.offset + 1)
      return range.getBoundingClientRect()
    }
    const outside: string[] = []
    for (let i = start; i < start + address.length; i++) {
      const rect = rectOf(i)
      if (rect.width === 0 || rect.left < frame.left - 0.5 || rect.right > frame.right + 0.5) outside.push(all[i]!)
    }
    const last = rectOf(start + address.length - 1)
    const next =
      start + address.length < all.length
        ? { char: all[start + address.length], rect: rectOf(start + address.length) }
        : null
    return {
      start,
      overflow: block.scrollWidth - block.clientWidth,
      outside: outside.join(''),
      ellipsis: getComputedStyle(node).textOverflow,
      nextChar: next?.char ?? null,
      sameLine: next === null || Math.abs(next.rect.top - last.top) < 2,
    }
  }, email)
  expect(found.start, 'the whole address is in the text').toBeGreaterThanOrEqual(0)
  expect(found.overflow, 'the block holding the address does not overflow').toBeLessThanOrEqual(0)
  expect(found.outside, 'characters of the address outside the block').toBe('')
  expect(found.ellipsis).not.toBe('ellipsis')
  expect(found.sameLine, `“${found.nextChar}” stays on the address's last line`).toBe(true)
}

test.describe('from 320 to 1280 px', () => {
  test('the signed-in page shows the long address whole', async ({ page, admin }) => {
    const email = longAddress()
    await admin.createUser(email, PASSWORD)
    await signIn(page, email, PASSWORD)
    await expect(page.getByRole('heading', { name: 'Votre session est ouverte' })).toBeVisible()
    await expectWhole(page, email)
  })

  test('the new-password subtitle shows the long address whole, its full stop with it', async ({ page, admin }) => {
    const email = longAddress()
    await admin.createUser(email, PASSWORD)
    await openNewPassword(page, admin, email)
    await expectWhole(page, email)
  })

  test('the sign-in link’s landing page shows the long address whole, its full stop with it', async ({
    page,
    admin,
    baseURL,
  }) => {
    const email = longAddress()
    await askForSignInLink(page, email)
    await page.goto(await admin.emailedLink(email, 'EMAIL_SIGNIN', baseURL!))
    await expect(page.getByRole('heading', { name: 'Connexion par courriel' })).toBeVisible()
    await expectWhole(page, email)
  })
})
