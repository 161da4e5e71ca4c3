import type { z } from 'zod'
import { openValue, sealValue } from '~/.server/keys'
import { clearCookie, getCookie, setCookie, type SealedCookie } from '~/.server/cookies'
import { csrfBinding, issueCsrf } from '~/.server/policy/csrf'

/** Values are encrypted and bound to this browser: planted, altered, expired or old-format cookies read as absent. */
export function flowCookie<T>(
  cookie: SealedCookie,
  schema: z.ZodType<T>,
  { until }: { until?: (value: T) => number } = {},
) {
  return {
    read(request: Request): T | null {
      const json = openValue(cookie.sealedAs, getCookie(request, cookie), csrfBinding(request))
      if (json === null) return null
      try {
        return schema.parse(JSON.parse(json))
      } catch {
        return null
      }
    },
    write(request: Request, value: T) {
      const left = until ? until(value) - Math.floor(Date.now() / 1000) : cookie.maxAge
      const maxAge = Math.max(1, Math.min(cookie.maxAge, left))
      const { token, setCookie: minted } = issueCsrf(request)
      const sealed = sealValue(cookie.sealedAs, JSON.stringify(value), token, maxAge)
      return [...(minted ? [minted] : []), setCookie(cookie, sealed, { maxAge })]
    },
    clear: () => clearCookie(cookie),
  }
}
