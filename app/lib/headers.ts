import type { HeadersFunction } from 'react-router'

/** React Router merges Set-Cookie on its own, so it is left out here. */
export const routeHeaders: HeadersFunction = ({ loaderHeaders, actionHeaders, errorHeaders }) => {
  const headers = new Headers()
  for (const source of [loaderHeaders, actionHeaders, errorHeaders]) {
    source?.forEach((value, name) => {
      if (name !== 'set-cookie') headers.set(name, value)
    })
  }
  return headers
}

/** Pages that carry or check a secret (codes, a pending sign-in) are never stored by a cache. */
export const NO_STORE = { 'Cache-Control': 'no-store' } as const
