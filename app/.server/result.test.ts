import { describe, expect, it } from 'vitest'
import { isRouteErrorResponse } from 'react-router'
import { ForgotPasswordFormSchema } from '~/lib/schemas'
import { errorPage, page, parseForm, redirectTo, respond, unavailable } from './result'

/** React Router's `data()` is a plain object with the init beside the data. */
const init = (value: unknown) => value as { data: unknown; init: { status: number; headers: Headers } }

describe('respond', () => {
  it('turns a redirect into a 303 with its cookies in order, never stored', () => {
    const response = respond(redirectTo('/account', { cookies: ['a=1', 'b=2'] })) as Response
    expect(response.status).toBe(303)
    expect(response.headers.get('Location')).toBe('/account')
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2'])
    expect(response.headers.get('Cache-Control')).toBe('no-store')
  })

  it('keeps a 302 where a GET moves on', () => {
    expect((respond(redirectTo('/', { status: 302 })) as Response).status).toBe(302)
  })

  it('keeps a 307 where a post is posted again elsewhere', () => {
    expect((respond(redirectTo('https://portal.example/sso/callback', { status: 307 })) as Response).status).toBe(307)
  })

  it('lets a page move on by itself without JavaScript: a Refresh header', () => {
    const answer = init(respond(page({}, { refresh: 'https://idp.example/auth?x=1' })))
    expect(answer.init.headers.get('Refresh')).toBe('0;url=https://idp.example/auth?x=1')
  })

  it("turns a page into its data, its status and a Retry-After", () => {
    const answer = init(respond(page({ email: 'a@example.com' }, { status: 429, retryAfter: 30.2, cookies: ['c=3'] })))
    expect(answer.data).toEqual({ email: 'a@example.com' })
    expect(answer.init.status).toBe(429)
    expect(answer.init.headers.get('Retry-After')).toBe('31')
    expect(answer.init.headers.getSetCookie()).toEqual(['c=3'])
    expect(answer.init.headers.get('Cache-Control')).toBe('no-store')
  })

  it('throws an error page, with its reason, for the error boundary', () => {
    let thrown: unknown
    try {
      respond(errorPage(400, 'bad-form'))
    } catch (error) {
      thrown = error
    }
    const answer = init(thrown)
    expect(answer.data).toEqual({ reason: 'bad-form' })
    expect(answer.init.status).toBe(400)
    expect(isRouteErrorResponse(thrown)).toBe(false)
    expect(() => respond(unavailable())).toThrow()
  })

  it('names the path a 404 shows when the address is not it (an over-long path, shortened)', () => {
    let thrown: unknown
    try {
      respond(errorPage(404, 'not-found', { path: '/abc…' }))
    } catch (error) {
      thrown = error
    }
    expect(init(thrown).data).toEqual({ reason: 'not-found', path: '/abc…' })
    expect(init(thrown).init.status).toBe(404)
  })
})

describe('parseForm', () => {
  const form = (fields: Record<string, string>) => {
    const body = new FormData()
    for (const [name, value] of Object.entries(fields)) body.append(name, value)
    return body
  }

  it('gives the parsed data', () => {
    const parsed = parseForm(ForgotPasswordFormSchema, form({ email: ' a@example.com ', csrf: 'x' }), { email: 'kept' })
    expect(parsed).toEqual({ ok: true, data: { email: 'a@example.com' } })
  })

  it('refuses with the page again: 400, one message per field, and what may be kept', () => {
    const parsed = parseForm(ForgotPasswordFormSchema, form({ email: 'not-an-address' }), { email: 'not-an-address' })
    expect(parsed.ok).toBe(false)
    if (parsed.ok) return
    expect(parsed.result).toEqual({
      kind: 'page',
      status: 400,
      data: { email: 'not-an-address', fieldErrors: { email: 'validation.emailInvalid' } },
    })
  })
})
