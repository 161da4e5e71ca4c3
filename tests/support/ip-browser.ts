import { expect } from 'vitest'
import { type emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { csrfTokenIn } from './csrf'

/**
 * A browser without JavaScript at a given client address (the portal runs with TRUST_PROXY=1, so it
 * believes X-Forwarded-For): a cookie jar, the CSRF token of the last page it loaded.
 */
export async function browser(base: string, ip: string) {
  const jar = new Map<string, string>()
  let csrf = ''
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0]!
      const eq = pair.indexOf('=')
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)]
      if (/;\s*max-age=0\b/i.test(line)) jar.delete(name)
      else jar.set(name, value)
    }
  }
  const headers = () => ({
    'X-Forwarded-For': ip,
    'Accept-Language': 'en',
    Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
  })
  const self = {
    jar,
    /** The HTML of the last page loaded. */
    html: '',
    /** GET `page` (another replica's base, optionally): keeps its cookies and CSRF token. */
    async load(page = '/', at = base) {
      const res = await fetch(`${at}${page}`, { headers: headers() })
      keep(res)
      self.html = await res.text()
      csrf = csrfTokenIn(self.html) ?? ''
      if (!csrf) throw new Error(`no CSRF token on ${page} (${res.status})`)
      return self
    },
    /** POSTs a form with the current cookies; `remember` keeps what it sets; `html` is the answer's text. */
    async post(action: string, fields: Record<string, string>, { at = base, remember = false } = {}) {
      const res = await fetch(`${at}${action}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...headers(), Origin: at },
        body: new URLSearchParams({ csrf, ...fields }),
      })
      const html = await res.text()
      if (remember) keep(res)
      // The page the portal answered (an error's message), its body being read already.
      return Object.assign(res, { html })
    },
    signIn(email: string, password: string, options: { at?: string; remember?: boolean } = {}) {
      return self.post('/?index', { email, password }, options)
    },
    /** "Confirm it's you" with the password, on the way to the account page `next`: the answer (a 303 to `next`). */
    async confirm(password: string, next: string) {
      const confirm = `/account/confirm?${new URLSearchParams({ next })}`
      await self.load(confirm)
      return self.post(confirm, { password }, { remember: true })
    },
  }
  return self.load()
}

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
) {
  const email = uniqueEmail('phone')
  const { localId } = await admin.createUser(email, password)
  await admin.verifyEmail(localId)
  const client = await browser(base, ip)
  client.jar.set('i18n_redirected', language)
  expect((await client.signIn(email, password, { remember: true })).status).toBe(303)
  expect((await client.confirm(password, PHONE_PATH)).headers.get('location')).toBe(PHONE_PATH)
  return client.load(PHONE_PATH)
}
