import { data, redirect } from 'react-router'
import type { z } from 'zod'
import type { AppLoadContext } from '~/.server/context'
import { getConfig } from '~/.server/config'
import { securityEvent } from '~/.server/ops/logger'
import { verifyCsrf } from '~/.server/policy/csrf'
import { checkRedirectParam } from '~/.server/policy/redirect'
import { NO_STORE } from '~/lib/headers'
import { formText } from '~/lib/form-text'
import { EMAIL_MAX_LENGTH, type FieldErrors } from '~/lib/limits'
import { CAPTCHA_TOKEN_FIELD } from '~/lib/recaptcha'
import { fieldErrorsOf } from '~/lib/schemas'

// A route's way in and out: guardForm lets a post in, parseForm reads its fields, and the Result a flow
// answers with becomes the response in respond(), the one place that happens (see ADR 048).

/** What a flow answers: a redirect, a page with its data, or an error page. */
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

/**
 * Every POST goes through here (see ADR 007): the body's bound, the form, the CSRF check (origin and token);
 * then what any form may carry: a redirect, checked against the redirect policy (`none` when the form has
 * none), and a reCAPTCHA token (postedCaptchaToken).
 */
export async function guardForm(request: Request, context: AppLoadContext) {
  refuseOversizedBody(context)
  let form: FormData
  try {
    form = await request.formData()
  } catch {
    throw data({ reason: 'bad-form' }, { status: 400 })
  }
  const verdict = verifyCsrf(request, form, { publicOrigin: context.publicOrigin, origin: context.requestOrigin })
  if (!verdict.ok) {
    securityEvent('csrf-refused', { reqId: context.requestId, ip: context.clientIp, reason: verdict.reason })
    // The error page has no loader data: the help link travels with the refusal.
    const help =
      verdict.reason === 'cookie-missing'
        ? { cookiesHelpUrl: getConfig().cookiesHelpUrl, framed: request.headers.get('sec-fetch-dest') === 'iframe' }
        : {}
    throw data({ reason: verdict.reason, ...help }, { status: 403 })
  }
  const redirect = await checkRedirectParam(form.has('redirect') ? formText(form, 'redirect') : null, context.publicOrigin)
  return { form, redirect, captchaResponse: postedCaptchaToken(form) }
}

/** Real tokens are about 2 KB. */
const CAPTCHA_TOKEN_MAX_LENGTH = 8192

/** The reCAPTCHA token the page's script added. undefined: no script ran (JavaScript off); '': it got no token. */
export function postedCaptchaToken(form: FormData, field = CAPTCHA_TOKEN_FIELD): string | undefined {
  const value = form.get(field)
  if (value === null) return undefined
  return typeof value === 'string' && value.length <= CAPTCHA_TOKEN_MAX_LENGTH ? value : ''
}

export function refuseOversizedBody(context: AppLoadContext) {
  if (context.bodyTooLarge) throw data({ reason: 'too-large' }, { status: 413, headers: NO_STORE })
}
