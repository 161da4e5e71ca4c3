/**
 * `npm run screenshots [-- URL]`: each page of a running portal (default http://localhost:3000, as
 * `npm start` serves it) at 320 and 1280 px, light and dark, French and English, into
 * .cache/screenshots/, to be looked at before a page is called done. Signs in with the demo account
 * for the account area. Debian's Chromium headless shell, as the browser tests use.
 */
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { chromium, type Page } from '@playwright/test'

const base = process.argv[2] ?? 'http://localhost:3000'
const out = path.resolve('.cache/screenshots')
mkdirSync(out, { recursive: true })
const PAGES = ['/', '/forgot-password', '/sign-up', '/logout', '/nowhere']
const SIGNED_IN = ['/account', '/account/password', '/account/email', '/account/delete']

async function signIn(page: Page) {
  await page.goto(`${base}/`)
  await page.locator('input[name=email]').fill('demo@example.com')
  await page.locator('input[name=password]').fill('Demo-Portal-2026')
  await page.locator('form.stack button[type=submit]').first().click()
  await page.getByText('demo@example.com').first().waitFor()
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium-headless-shell', args: ['--no-sandbox'] })
let count = 0
for (const locale of ['fr-FR', 'en-US']) {
  for (const colorScheme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ locale, colorScheme })
    const page = await context.newPage()
    const shoot = async (route: string) => {
      for (const width of [320, 1280]) {
        await page.setViewportSize({ width, height: 900 })
        await page.goto(`${base}${route}`)
        const name = `${route.replace(/\W+/g, '-').replace(/^-|-$/g, '') || 'sign-in'}-${locale.slice(0, 2)}-${colorScheme}-${width}.png`
        await page.screenshot({ path: path.join(out, name), fullPage: true })
        count += 1
      }
    }
    for (const route of PAGES) await shoot(route)
    await signIn(page)
    for (const route of SIGNED_IN) await shoot(route)
    await context.close()
  }
}
await browser.close()
console.log(`${count} screenshots in ${out}`)
