import { data, redirect } from 'react-router'
import type { z } from 'zod'
import { NO_STORE } from '~/lib/headers'
import type { FieldErrors } from '~/lib/limits'
import { fieldErrorsOf } from '~/lib/schemas'

/**
 * What a flow answers, whatever the flow: a redirect, a page's data, or an error page; each may
 * carry cookies and a Retry-After. `respond()` is the one place it becomes a response (ADR 048),
 * so a route's action reads: guard, parse with a schema, call the flow, respond.
 */
export type Result<Data = never> = Redirect | Page<Data> | ErrorPage

interface Extras {
  /** Set-Cookie values, sent in this order. */
  cookies?: readonly string[]
  /** Seconds, for a refusal the visitor may retry later. */
  retryAfter?: number
}

export interface Redirect extends Extras {
  kind: 'redirect'
  location: string
  /**
   * 303 (See Other) after a post, the default; 302 where a GET moves on; 307 where a post must be
   * posted again there (single sign-on's callback relayed to the public origin).
   */
  status?: 302 | 303 | 307
}

export interface Page<Data> extends Extras {
  kind: 'page'
  data: Data
  status?: number
  /** Where the page moves on to by itself, for browsers without JavaScript (a Refresh header). */
  refresh?: string
}

export interface ErrorPage extends Extras {
  kind: 'error'
  status: number
  /** What went wrong, for the error page (app/components/error-boundary.tsx). */
  reason: string
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

export const errorPage = (status: number, reason: string, extras: Extras = {}): ErrorPage => ({
  kind: 'error',
  status,
  reason,
  ...extras,
})

/** The identity service could not answer: the page says to come back (ADR 029). */
export const unavailable = (extras: Extras & { status?: number } = {}): ErrorPage =>
  errorPage(extras.status ?? 503, 'identity-unavailable', extras)

function headersOf(result: Result<unknown>): Headers {
  const headers = new Headers(NO_STORE)
  for (const cookie of result.cookies ?? []) headers.append('Set-Cookie', cookie)
  if (result.retryAfter) headers.set('Retry-After', String(Math.ceil(result.retryAfter)))
  if (result.kind === 'page' && result.refresh) headers.set('Refresh', `0;url=${result.refresh}`)
  return headers
}

/**
 * The response for a result: never stored by a cache. A redirect is returned, and so is a page;
 * an error page is thrown, so that the route's error boundary renders it.
 */
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
      throw data({ reason: result.reason }, { status: result.status, headers })
  }
}

/**
 * The posted form read with its schema. Refused, the answer is the page again, 400, with the
 * first message for each field and `kept`: what the visitor typed that may come back (never a
 * password).
 */
export function parseForm<Schema extends z.ZodType, Kept extends object>(
  schema: Schema,
  form: FormData,
  kept: Kept,
): { ok: true; data: z.output<Schema> } | { ok: false; result: Page<Kept & { fieldErrors: FieldErrors }> } {
  const parsed = schema.safeParse(Object.fromEntries(form))
  if (parsed.success) return { ok: true, data: parsed.data }
  return { ok: false, result: page({ ...kept, fieldErrors: fieldErrorsOf(parsed.error) }, { status: 400 }) }
}
