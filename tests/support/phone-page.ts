import { expect } from 'vitest'
import { type emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { browserAt, type HttpBrowser } from './http-browser'

/** The account page that adds a phone as a second factor. */
export const PHONE_PATH = '/account/second-factor/phone'

/**
 * A new verified account with `password`, signed in and confirmed ("Confirm it's you") from client
 * address `ip` on the portal at `base`, its browser on the phone page (in `language`).
 */
export async function onPhonePage(
  base: string,
  admin: ReturnType<typeof emulatorAdmin>,
  { ip, password, language = 'en' }: { ip: string; password: string; language?: 'en' | 'fr' },
): Promise<HttpBrowser> {
  const email = uniqueEmail('phone')
  const { localId } = await admin.createUser(email, password)
  await admin.verifyEmail(localId)
  const client = await browserAt(base, ip)
  client.plant('i18n_redirected', language)
  expect((await client.signIn(email, password, { remember: true })).status).toBe(303)
  expect((await client.confirm(password, PHONE_PATH)).headers.get('location')).toBe(PHONE_PATH)
  return client.load(PHONE_PATH)
}
