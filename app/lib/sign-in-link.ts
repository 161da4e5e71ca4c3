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
