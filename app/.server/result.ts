import { data, redirect } from 'react-router'
import type { z } from 'zod'
import { NO_STORE } from '~/lib/headers'
import { formText } from '~/lib/form-text'
import { EMAIL_MAX_LENGTH, type FieldErrors } from '~/lib/limits'
import { fieldErrorsOf } from '~/lib/schemas'

/** respond() is the one place a result becomes a response (see ADR 048). */
export type Result<Data = never> = Redirect | Page<Data> | ErrorPage

interface Extras {
  cookies?: readonly string[]
  retryAfter?: number
}

export interface Redirect extends Extras {
  kind: 'redirect'
  location: string
  /** 307 where a post must be posted again there (single sign-on's callback relayed to the public origin). */
  status?: 302 | 303 | 307
}

export interface Page<Data> extends Extras {
  kind: 'page'
  data: Data
  status?: number
  refresh?: string
}

export interface ErrorPage extends Extras {
  kind: 'error'
  status: number
  reason: string
  /** The path a 404 names, when it is not the address's own (an over-long path, shortened: app/routes/$.tsx). */
  path?: string
}

export const redirectTo = (location: string, extras: Extras & { status?: 302 | 303 | 307 } = {}): Redirect => ({
  kind: 'redirect',
  location,
  ...extras,
})

export const page = <Data>(data: Data, extras: Extras & { status?: number; refresh?: string } = {}): Page<Data> => ({
  kind: 'page',
  data,
  ...extras,
})

export const errorPage = (status: number, reason: string, extras: Extras & { path?: string } = {}): ErrorPage => ({
  kind: 'error',
  status,
  reason,
  ...extras,
})

export const unavailable = (extras: Extras & { status?: number } = {}): ErrorPage =>
  errorPage(extras.status ?? 503, 'identity-unavailable', extras)

type KeysOf<T> = T extends unknown ? keyof T : never

/**
 * The data a page's answers carry, as one type the page reads without a cast: each member gets the
 * other members' fields as `?: undefined` (TypeScript reads a field of a union only when every member
 * has it). An action names it once, `respond<Answers<A | B>>(…)`, and its page's actionData is typed.
 */
export type Answers<T, All = T> = T extends unknown ? T & { [K in Exclude<KeysOf<All>, keyof T>]?: undefined } : never

function headersOf(result: Result<unknown>): Headers {
  const headers = new Headers(NO_STORE)
  for (const cookie of result.cookies ?? []) headers.append('Set-Cookie', cookie)
  if (result.retryAfter) headers.set('Retry-After', String(Math.ceil(result.retryAfter)))
  if (result.kind === 'page' && result.refresh) headers.set('Refresh', `0;url=${result.refresh}`)
  return headers
}

/** Never cached. An error page is thrown, so that the route's error boundary renders it. */
export function respond(result: ErrorPage): never
export function respond(result: Redirect): Response
export function respond<Data>(result: Result<Data>): Response | ReturnType<typeof data<Data>>
export function respond<Data>(result: Result<Data>) {
  const headers = headersOf(result)
  switch (result.kind) {
    case 'redirect':
      return redirect(result.location, { status: result.status ?? 303, headers })
    case 'page':
      return data(result.data, { status: result.status ?? 200, headers })
    case 'error':
      throw data(result.path === undefined ? { reason: result.reason } : { reason: result.reason, path: result.path }, {
        status: result.status,
        headers,
      })
  }
}

export function parseForm<Schema extends z.ZodType, Kept extends object>(
  schema: Schema,
  form: FormData,
  kept: Kept,
): { ok: true; data: z.output<Schema> } | { ok: false; result: Page<Kept & { fieldErrors: FieldErrors }> } {
  const parsed = schema.safeParse(Object.fromEntries(form))
  if (parsed.success) return { ok: true, data: parsed.data }
  return { ok: false, result: page({ ...kept, fieldErrors: fieldErrorsOf(parsed.error) }, { status: 400 }) }
}

/** The address a refused form shows again, as typed: trimmed and bounded, never parsed. */
export function keptEmail(form: FormData): string {
  return formText(form, 'email').trim().slice(0, EMAIL_MAX_LENGTH)
}
