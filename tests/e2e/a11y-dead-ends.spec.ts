import { EMULATOR_API_KEY, uniqueEmail, uniquePhone } from '../../dev/emulator'
import type { Portal } from '../../dev/portal'
import { startSmsFaults, type SmsFaults } from '../support/sms-faults'
import { expectHtmlAccessible, expectNoViolations } from './axe'
import { expect, portalBehind, signIn, test as base } from './fixtures'

/**
 * axe on the states that say what works next (a11y.spec.ts has the others): a dead emailed link
 * and its own way on, a kind of second factor the project does not offer, the code step when no
 * SMS went and under an SMS limit, sign-in's limit with its time, and the warning of a frame whose
 * cookies are blocked. French, light and dark, with and without JavaScript.
 */

const PASSWORD = 'Accessible-Ends-2026'

const test = base.extend<{ fake: { identity: SmsFaults; portal: Portal } }>({
  fake: portalBehind(startSmsFaults, { RATE_LIMIT_MFA_SMS_PER_PHONE: '1', RATE_LIMIT_SIGNIN_PER_EMAIL_IP: '1' }),
})

test.describe('the states that say what works next are accessible, light and dark', () => {
  test.describe.configure({ timeout: 90_000 })

  test('a dead verification link, and a kind of factor not offered', async ({ page, admin }) => {
    await page.goto(`/action?mode=verifyEmail&oobCode=dead&apiKey=${EMULATOR_API_KEY}`)
    await expect(page.getByRole('link', { name: 'Aller à votre compte' })).toBeVisible()
    await expectNoViolations(page, 'dead verification link')
    const email = uniqueEmail('a11y-offer')
    const { localId } = await admin.createUser(email, PASSWORD)
    await admin.verifyEmail(localId)
    await signIn(page, email, PASSWORD, '/?redirect=%2Faccount%2Fsecond-factor%2Ftotp')
    await expect(page.getByRole('alert')).toBeVisible()
    await expectNoViolations(page, 'authenticator app not offered')
  })

  test('the code step when no SMS went, under an SMS limit, and sign-in’s limit', async ({ page, admin, fake }) => {
    const phone = uniquePhone()
    const email = uniqueEmail('a11y-sms')
    const { localId } = await admin.createUser(email, PASSWORD)
    await admin.enrollSms(localId, [{ phoneNumber: phone }])
    fake.identity.failNext(1)
    await signIn(page, email, PASSWORD, `${fake.portal.url}/`)
    await expect(page.getByRole('button', { name: 'Renvoyer le code' })).toBeVisible()
    await expectNoViolations(page, 'code step, no SMS sent')
    await page.getByRole('button', { name: 'Renvoyer le code' }).click()
    await expect(page.getByLabel('Code de vérification')).toBeVisible()
    await signIn(page, email, PASSWORD, `${fake.portal.url}/`)
    await expect(page.getByRole('alert').locator('time')).toBeVisible()
    await expectNoViolations(page, 'code step, SMS limit')

    const other = uniqueEmail('a11y-limit')
    await admin.createUser(other, PASSWORD)
    for (let i = 0; i < 2; i++) await signIn(page, other, 'Not-The-Password-1', `${fake.portal.url}/`)
    await expect(page.getByRole('alert').locator('time')).toBeVisible()
    await expectNoViolations(page, 'sign-in limit')
  })

  test('the warning of a frame whose cookies are blocked @no-js-only', async ({ page, baseURL, browser }) => {
    // The page as a cross-site frame gets it (the browser's own frame is checked in framed.spec.ts).
    const url = `${baseURL}/`
    const res = await fetch(url, { headers: { 'Sec-Fetch-Dest': 'iframe', 'Sec-Fetch-Site': 'cross-site', 'Accept-Language': 'fr' } })
    const html = await res.text()
    expect(html).toContain('Veuillez activer les cookies tiers dans votre navigateur pour continuer.')
    await expectHtmlAccessible(browser, { url, html, viewport: page.viewportSize()! }, 'framed, cookies blocked')
  })
})
