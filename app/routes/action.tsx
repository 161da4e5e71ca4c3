import {
  data,
  redirect,
  useActionData,
  useLoaderData,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from 'react-router'
import { useRef } from 'react'
import { EmailActionConfirm, EmailActionDone } from '~/components/email-action'
import { ExpiredLink } from '~/components/expired-link'
import { useAfterSubmission } from '~/components/forms'
import { NO_STORE, routeHeaders } from '~/lib/headers'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import {
  applyEmailAction,
  clearCodeCookie,
  inspectEmailAction,
  routeEmailLink,
  type ActionResult,
} from '~/.server/auth/email-actions'
import { guardForm } from '~/.server/policy/form-guard'

export const headers = routeHeaders

export const meta: MetaFunction = ({ matches }) => pageTitle(matches, 'meta.action', NOT_INDEXED)

/**
 * The guard for emailed links (ADR 011): a reset link goes on to /new-password
 * without `mode` and `apiKey`; the other modes move their code into a cookie and reload on a
 * clean URL, whose GET checks the code without spending it. Missing or unknown modes are a 400.
 */
export async function loader({ request, url }: LoaderFunctionArgs) {
  const routing = routeEmailLink(request, url)
  if (routing.kind === 'redirect') {
    const headers = new Headers(NO_STORE)
    for (const cookie of routing.setCookies) headers.append('Set-Cookie', cookie)
    throw redirect(routing.location, { headers })
  }
  const page = routing.kind === 'invalid' ? ({ mode: 'invalid' } as const) : await inspectEmailAction(request)
  if ('unavailable' in page)
    throw data({ reason: 'identity-unavailable' }, { status: page.unavailable, headers: NO_STORE })
  const invalid = page.mode === 'invalid'
  return data(
    { page },
    {
      status: invalid ? 400 : 200,
      headers: invalid && routing.kind === 'pending' ? { ...NO_STORE, 'Set-Cookie': clearCodeCookie() } : NO_STORE,
    },
  )
}

/** 'Continue': spends the code (a sign-in link signs in and redirects). */
export async function action({ request, context }: ActionFunctionArgs) {
  const { form } = await guardForm(request, context)
  const outcome = await applyEmailAction(request, form, context)
  if (outcome.unavailable) {
    throw data({ reason: 'identity-unavailable' }, { status: outcome.unavailable, headers: NO_STORE })
  }
  const headers = new Headers(NO_STORE)
  for (const cookie of outcome.setCookies) headers.append('Set-Cookie', cookie)
  if (outcome.redirect) throw redirect(outcome.redirect, { status: 303, headers })
  return data(
    { result: outcome.result ?? ({ status: 'invalid-link' } as ActionResult) },
    { status: outcome.httpStatus, headers },
  )
}

export default function EmailAction() {
  const { page } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()?.result
  const formRef = useRef<HTMLFormElement>(null)
  useAfterSubmission(formRef, result)

  if (result?.status === 'done') return <EmailActionDone result={result} />
  if (page.mode === 'invalid' || result?.status === 'invalid-link') {
    return <ExpiredLink again="/forgot-password" />
  }
  return <EmailActionConfirm ref={formRef} page={page} error={result?.status === 'error' ? result : null} />
}
