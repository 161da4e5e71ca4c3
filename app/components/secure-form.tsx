import { Form, useRouteLoaderData, type FormProps } from 'react-router'
import type { Ref } from 'react'
import { CSRF_FIELD } from '~/lib/form-fields'
import type { loader as rootLoader } from '~/root'

/**
 * A POST form that carries the CSRF token (bound to the `csrf` cookie). No honeypot: a text browser
 * shows every input, and a person who filled it was taken for a bot (ADR 028).
 * Works without JavaScript; with it, React Router submits it with fetch.
 */
export function SecureForm({ children, ref, ...props }: FormProps & { ref?: Ref<HTMLFormElement> }) {
  const root = useRouteLoaderData<typeof rootLoader>('root')
  return (
    <Form ref={ref} method="post" {...props}>
      <input type="hidden" name={CSRF_FIELD} value={root?.csrf ?? ''} />
      {children}
    </Form>
  )
}
