import { Form, useRouteLoaderData, type FormProps } from 'react-router'
import { forwardRef } from 'react'
import { CSRF_FIELD, HONEYPOT_FIELD } from '~/lib/form-fields'
import type { loader as rootLoader } from '~/root'

/**
 * A POST form that carries the CSRF token (bound to the `csrf` cookie) and the honeypot.
 * Works without JavaScript; with it, Remix submits it with fetch.
 */
export const SecureForm = forwardRef<HTMLFormElement, FormProps>(function SecureForm({ children, ...props }, ref) {
  const root = useRouteLoaderData<typeof rootLoader>('root')
  return (
    <Form ref={ref} method="post" {...props}>
      <input type="hidden" name={CSRF_FIELD} value={root?.csrf ?? ''} />
      <input type="text" name={HONEYPOT_FIELD} className="hp" tabIndex={-1} autoComplete="off" aria-hidden="true" />
      {children}
    </Form>
  )
})
