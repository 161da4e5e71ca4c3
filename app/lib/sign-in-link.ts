/** The one way a link to the sign-in page is built, so the visitor's destination is never dropped on the way. */
export function signInLink(redirect: string | null | undefined, query: Record<string, string> = {}): string {
  const params = new URLSearchParams(query)
  if (redirect !== null && redirect !== undefined) params.set('redirect', redirect)
  return params.size ? `/?${params}` : '/'
}

/** A client navigation's data request (`/account.data?_routes=…`) is for `/account`. */
export function pageAddress(requestUrl: string): string {
  const url = new URL(requestUrl)
  url.searchParams.delete('_routes')
  const path = url.pathname === '/_.data' ? '/' : url.pathname.replace(/\.data$/, '')
  return path + url.search
}
