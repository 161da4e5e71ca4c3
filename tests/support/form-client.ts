import { csrfTokenIn } from './csrf'

/**
 * What a browser without JavaScript does, for vitest: GET a form page (CSRF cookie and token),
 * then post forms with them. `headers` go with every request (e.g. Accept-Language).
 */
export async function formClient(base: string, page = '/', headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${page}`, { headers })
  const html = await res.text()
  const csrf = csrfTokenIn(html)
  if (!csrf) throw new Error(`no CSRF token on ${page} (${res.status})`)
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')
  return (action: string, fields: Record<string, string>) =>
    fetch(`${base}${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers, Cookie: cookie, Origin: base },
      body: new URLSearchParams({ csrf, ...fields }),
    })
}
