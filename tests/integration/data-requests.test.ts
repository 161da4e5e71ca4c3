import { describe, expect, inject, it } from 'vitest'
import { csrfTokenIn } from '../support/csrf'

/**
 * React Router's data requests (`.data`) as the shared portal answers them: each carries something of
 * the visitor (the root loader's CSRF token at least), so none may be kept by a cache, whichever
 * routes it runs and whatever its status.
 */
const portal = inject('portal')

const DATA_REQUESTS = [
  '/_root.data',
  '/_root.data?_routes=root',
  '/forgot-password.data',
  '/forgot-password.data?_routes=root',
  '/new-password.data?_routes=root',
  '/no-such-page.data',
  '/no-such-page.data?_routes=root',
  '/account.data',
  '/logout.data?_routes=root',
]

describe('data requests', () => {
  it.each(DATA_REQUESTS)('%s answers Cache-Control: no-store', async (path) => {
    const res = await fetch(`${portal.url}${path}`, { redirect: 'manual' })
    expect(res.headers.get('cache-control'), `${path} (${res.status})`).toBe('no-store')
  })

  it('the root-only answer carries the CSRF token of the page it came with: the reason it is never stored', async () => {
    const page = await fetch(`${portal.url}/forgot-password`)
    const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ')
    const csrf = csrfTokenIn(await page.text())
    expect(csrf).toBeTruthy()
    const data = await fetch(`${portal.url}/forgot-password.data?_routes=root`, { headers: { Cookie: cookie } })
    expect(data.status).toBe(200)
    expect(await data.text()).toContain(csrf)
    expect(data.headers.get('cache-control')).toBe('no-store')
  })
})
