import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'

/**
 * The look (issue 18): the logo centred over the card, the show-password toggle, placeholders that
 * fit a 320 px screen. Each runs with JavaScript on and off (the two projects).
 */

/**
 * Where the logo's drawn pixels are centred, relative to the card's centre, in CSS pixels. Each
 * image is drawn into a canvas at its rendered size (four times finer) and its columns scanned for
 * any opaque pixel: what the images draw counts, not their boxes.
 */
async function logoOffsetFromCard(page: Page): Promise<{ offset: number; left: number; right: number }> {
  return page.evaluate(async () => {
    const images = [...document.querySelectorAll<HTMLImageElement>('.logo img')]
    await Promise.all(images.map((img) => img.decode()))
    let left = Infinity
    let right = -Infinity
    for (const img of images) {
      const box = img.getBoundingClientRect()
      const scale = 4
      const canvas = document.createElement('canvas')
      canvas.width = Math.round(box.width * scale)
      canvas.height = Math.round(box.height * scale)
      const context = canvas.getContext('2d')!
      context.drawImage(img, 0, 0, canvas.width, canvas.height)
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height)
      const drawn = (x: number) => {
        for (let y = 0; y < canvas.height; y++) if (data[(y * canvas.width + x) * 4 + 3] > 16) return true
        return false
      }
      let first = 0
      while (first < canvas.width && !drawn(first)) first++
      let last = canvas.width - 1
      while (last >= 0 && !drawn(last)) last--
      if (first > last) continue
      left = Math.min(left, box.left + first / scale)
      right = Math.max(right, box.left + (last + 1) / scale)
    }
    const card = document.querySelector('main')!.getBoundingClientRect()
    return { offset: (left + right) / 2 - (card.left + card.right) / 2, left, right }
  })
}

test.describe('the logo', () => {
  test.use({ colorScheme: 'light' })
  for (const width of [320, 1280]) {
    test(`is centred over the card at ${width} px`, async ({ page }) => {
      await page.setViewportSize({ width, height: 800 })
      await page.goto('/')
      const { offset, left, right } = await logoOffsetFromCard(page)
      expect(right - left, 'the logo draws something').toBeGreaterThan(100)
      expect(Math.abs(offset), `drawn from ${left} to ${right}, ${offset} px off the card's centre`).toBeLessThanOrEqual(6)
    })
  }

  test('keeps its two images and its name', async ({ page }) => {
    await page.goto('/')
    await expect(page.locator('.logo img')).toHaveCount(2)
    await expect(page.getByRole('img', { name: 'Portail d’authentification' })).toBeVisible()
  })
})
