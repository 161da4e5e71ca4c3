/**
 * The address of the sign-in page carrying `redirect` (and a flow's own parameters before it): the
 * one way a link, a redirect or an emailed continueUrl to the sign-in page is built, so that the
 * visitor's destination is never dropped on the way. Null, or no redirect, leaves it out.
 */
export function signInLink(redirect: string | null | undefined, query: Record<string, string> = {}): string {
  const params = new URLSearchParams(query)
  if (redirect !== null && redirect !== undefined) params.set('redirect', redirect)
  return params.size ? `/?${params}` : '/'
}

/**
 * The page a request is for, as its address reads in the browser: a client navigation's data
 * request (`/account.data?_routes=…`) is for `/account`. What a signed-out visitor comes back to.
 */
export function pageAddress(requestUrl: string): string {
  const url = new URL(requestUrl)
  url.searchParams.delete('_routes')
  const path = url.pathname === '/_.data' ? '/' : url.pathname.replace(/\.data$/, '')
  return path + url.search
}
