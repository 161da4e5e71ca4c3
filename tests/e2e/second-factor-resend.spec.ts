import { uniqueEmail, uniquePhone } from '../../dev/emulator'
import type { Page } from '@playwright/test'
import { COMMON_LABELS, expect, SHORT_RESEND_WAIT, shortWaitPortal, testOn } from './fixtures'

/**
 * "Resend code" on the second-factor step once its wait is over: every code sent starts a wait of
 * its own, which the page shows at once. The portal's wait (RESEND_WAIT_SECONDS, 10 s on this spec's
 * portal) is waited out for real: the server dates each code it sends. One test waits it out for both
 * browsers, with JavaScript and without (a context of its own), instead of one wait in each project.
 */
const test = testOn(shortWaitPortal)

const PASSWORD = 'Correct-Horse-42'
const l = COMMON_LABELS.en

test.use({ locale: 'en-US' })

test(
  '“Resend code” after the wait sends a new code and shows the new wait at once, with JavaScript and without',
  { tag: '@once' },
  async ({ page, admin, browser, baseURL }) => {
    test.setTimeout(90_000)
    // Both browsers wait out the same wait: the one without JavaScript is a context of its own.
    const noJs = await browser.newContext({ baseURL, locale: 'en-US', javaScriptEnabled: false })
    try {
      const atCodeStep = async (page: Page) => {
        const email = uniqueEmail('resend')
        const phone = uniquePhone()
        const { localId } = await admin.createUser(email, PASSWORD)
        await admin.enrollSms(localId, [{ phoneNumber: phone }])
        await page.goto('/')
        await page.getByLabel(l.email, { exact: true }).fill(email)
        await page.getByLabel(l.password, { exact: true }).fill(PASSWORD)
        await page.getByRole('button', { name: l.signIn }).click()
        const resend = page.getByRole('button', { name: 'Resend code' })
        await expect(resend).toHaveAttribute('aria-disabled', 'true')
        expect(await admin.lastSmsCode(phone)).toMatch(/^\d{6}$/)
        return { page, phone, resend }
      }
      const steps = [
        { javaScriptEnabled: true, ...(await atCodeStep(page)) },
        { javaScriptEnabled: false, ...(await atCodeStep(await noJs.newPage())) },
      ]

      await page.waitForTimeout((SHORT_RESEND_WAIT + 1) * 1000)
      for (const { javaScriptEnabled, page, phone, resend } of steps) {
        // Without JavaScript the page still says what it said when it came: the button is marked unavailable but posts.
        await resend.click({ force: !javaScriptEnabled })
        await expect(page.getByRole('status')).toHaveText('A new code has been sent.')
        expect(await admin.lastSmsCode(phone, 1)).toMatch(/^\d{6}$/)
        await expect(resend).toHaveAttribute('aria-disabled', 'true', { timeout: 1_000 })
        await expect(resend).toHaveText(new RegExp(`^Resend code \\(0:0[0-${SHORT_RESEND_WAIT}]\\)$`), { timeout: 1_000 })
      }
    } finally {
      await noJs.close()
    }
  },
)
