import type { z } from 'zod'
import { openValue, sealValue } from '~/.server/cookie-format'
import { clearCookie, getCookie, setCookie, type SealedCookie } from '~/.server/cookies'
import { csrfBinding, issueCsrf } from '~/.server/policy/csrf'

/**
 * The state of a flow in progress (a pending sign-in, an emailed code, an enrolment…), kept in the
 * browser in that flow's own cookie (ADR 047), declared once per flow with its schema:
 *
 *     const pending = flowCookie(COOKIES.mfaPending, PendingSchema)
 *
 * Every value is encrypted, bound to the browser that started the flow and ends with its cookie
 * (app/.server/cookie-format.ts): planted in another browser, altered, expired or written by an
 * older format, it reads as absent, and the flow shows its own expired or invalid-link message.
 */
export interface FlowCookie<T> {
  /** This browser's value, parsed with the schema, or null. */
  read(request: Request): T | null
  /** The Set-Cookie values that keep `value`: the browser's first CSRF token when it had none (its binding), then the cookie. */
  write(request: Request, value: T): string[]
  /** The Set-Cookie that forgets it. */
  clear(): string
}

export interface FlowCookieOptions<T> {
  /** When the value ends, in seconds since the epoch, when before the cookie's own lifetime (the identity service's session). */
  until?: (value: T) => number
}

export function flowCookie<T>(
  cookie: SealedCookie,
  schema: z.ZodType<T>,
  { until }: FlowCookieOptions<T> = {},
): FlowCookie<T> {
  return {
    read(request) {
      const json = openValue(cookie.sealedAs, getCookie(request, cookie), csrfBinding(request))
      if (json === null) return null
      try {
        const parsed = schema.safeParse(JSON.parse(json))
        return parsed.success ? parsed.data : null
      } catch {
        return null
      }
    },
    write(request, value) {
      const left = until ? until(value) - Math.floor(Date.now() / 1000) : cookie.maxAge
      const maxAge = Math.max(1, Math.min(cookie.maxAge, left))
      const { token, setCookie: minted } = issueCsrf(request)
      const sealed = sealValue(cookie.sealedAs, JSON.stringify(value), token, maxAge)
      return [...(minted ? [minted] : []), setCookie(cookie, sealed, { maxAge })]
    },
    clear: () => clearCookie(cookie),
  }
}
