import { uniqueEmail, uniquePhone } from '../../dev/emulator'
import { COMMON_LABELS, expect, test } from './fixtures'

/**
 * "Resend code" on the second-factor step once its wait is over: every code sent starts a wait of
 * its own, which the page shows at once. The portal's 30 s cooldown is waited out for real: the
 * server dates each code it sends.
 */

const PASSWORD = 'Correct-Horse-42'
const l = COMMON_LABELS.en

test.use({ locale: 'en-US' })

test('“Resend code” after the wait sends a new code and shows the new wait at once', async ({ page, admin, javaScriptEnabled }) => {
  test.setTimeout(75_000)
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

  await page.waitForTimeout(31_000)
  // Without JavaScript the page still says what it said when it came: the button is marked unavailable but posts.
  await resend.click({ force: !javaScriptEnabled })
  await expect(page.getByRole('status')).toHaveText('A new code has been sent.')
  expect(await admin.lastSmsCode(phone, 1)).toMatch(/^\d{6}$/)
  await expect(resend).toHaveAttribute('aria-disabled', 'true', { timeout: 1_000 })
  await expect(resend).toHaveText(/^Resend code \(0:(2\d|30)\)$/, { timeout: 1_000 })
})
