import type { Page } from '@playwright/test'

/**
 * The Auth emulator's fake provider page, as the single sign-on specs drive it. It needs
 * JavaScript, so the specs send the answer it would have sent (its iOS deep-link format).
 * Without a browser: `providerStart` reads the same from /sso/start's answer.
 */

const emulatorOrigin = () => process.env.EMULATOR_ORIGIN!

/** Clicks the button and waits for the emulator's provider page; answers its eventId and return address. */
export async function startSso(page: Page, label = 'Continuer avec Google') {
  await page.getByRole('button', { name: label }).click()
  await page.waitForURL((url) => url.href.startsWith(`${emulatorOrigin()}/emulator/auth/handler`), {
    waitUntil: 'commit',
  })
  const url = new URL(page.url())
  return { eventId: url.searchParams.get('eventId')!, ibi: url.searchParams.get('ibi')!, url }
}

/**
 * The address the fake provider page sends the browser to (its iOS deep-link format). The emulator
 * signs in with the provider its answer names: another one than the portal's gives an account of it.
 */
export function providerAnswer(
  start: { eventId: string; ibi: string },
  claims: Record<string, unknown>,
  providerId = 'google.com',
  emulator = emulatorOrigin(),
): string {
  const handler = `${emulator}/emulator/auth/handler?providerId=${providerId}&id_token=${encodeURIComponent(JSON.stringify(claims))}`
  const callback = `${emulator}/__/auth/callback?authType=signInViaRedirect&link=${encodeURIComponent(handler)}&eventId=${start.eventId}`
  return `${start.ibi}://google/link?deep_link_id=${encodeURIComponent(callback)}`
}

/** A provider account of its own: a new subject with `email`. */
export const claimsFor = (email: string, verified = true) => ({
  sub: `${Date.now()}${Math.random()}`.replace('.', ''),
  email,
  email_verified: verified,
})

/** The provider page's eventId and return address, from /sso/start's answer (its Refresh header). */
export function providerStart(response: Response): { eventId: string; ibi: string } {
  const url = new URL((response.headers.get('refresh') ?? '').replace(/^0;url=/, ''))
  return { eventId: url.searchParams.get('eventId')!, ibi: url.searchParams.get('ibi')! }
}
