import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'

/**
 * The worker's pooled page (page-pool.ts, ADR 054) reaches the next test as a new page would:
 * these tests run in order in one worker, the first leaving behind all it can.
 */
test.describe.configure({ mode: 'serial' })

let first: Page | undefined

test('a test leaves cookies, storage, a route, a listener, a viewport and a colour scheme behind @js-only', async ({ page, context, baseURL }) => {
  first = page
  await context.addCookies([{ name: 'left_behind', value: '1', url: baseURL! }])
  await page.goto('/')
  await page.evaluate(() => {
    localStorage.setItem('left', 'behind')
    sessionStorage.setItem('left', 'behind')
  })
  await page.route('**/*.css', (route) => route.abort())
  page.on('console', () => {
    throw new Error('a listener of the test before')
  })
  await page.setViewportSize({ width: 320, height: 640 })
  await page.emulateMedia({ colorScheme: 'dark' })
})

test('the next test gets the same page, as new @js-only', async ({ page, context }) => {
  expect(page, 'the pooled page').toBe(first)
  expect(page.url()).toBe('about:blank')
  expect(await context.cookies()).toEqual([])
  expect(page.viewportSize()).toEqual({ width: 1280, height: 720 })
  await page.goto('/')
  expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0])
  expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(false)
  // The stylesheet loads again: the route is gone. A console message reaches no old listener.
  expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).not.toBe('')
  expect(await page.evaluate(() => document.styleSheets.length)).toBeGreaterThan(0)
  await page.evaluate(() => console.log('heard by no one'))
})

test('an init script cannot be undone: it retires the page @js-only', async ({ page }) => {
  expect(page).toBe(first)
  await page.addInitScript(() => Object.assign(window, { leftBehind: true }))
})

test('so the next test gets a new one @js-only', async ({ page }) => {
  expect(page).not.toBe(first)
  await page.goto('/')
  expect(await page.evaluate(() => 'leftBehind' in window)).toBe(false)
})
