import {
  useActionData,
  useLoaderData,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
  type ShouldRevalidateFunction,
} from 'react-router'
import { useRef } from 'react'
import { EmailActionConfirm, EmailActionDone } from '~/components/email-action'
import { ExpiredLink } from '~/components/expired-link'
import { useAfterSubmission } from '~/components/forms'
import { routeHeaders } from '~/lib/headers'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { EmailActionFormSchema } from '~/lib/schemas'
import { applyEmailAction, emailActionPage } from '~/.server/auth/email-actions'
import { guardForm } from '~/.server/policy/csrf'
import { respond } from '~/.server/result'

export const headers = routeHeaders

export const meta: MetaFunction = ({ matches }) => pageTitle(matches, 'meta.action', NOT_INDEXED)

/** The guard for emailed links (ADR 011): GETs check the code, never spend it. */
export async function loader({ request, url }: LoaderFunctionArgs) {
  return respond(await emailActionPage(request, url))
}

/** After 'Continue' the link is spent: the page is the action's answer, not the loader's again (a 400). */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formAction, defaultShouldRevalidate }) =>
  formAction?.startsWith('/action') ? false : defaultShouldRevalidate

/** 'Continue': spends the code (a sign-in link signs in and redirects). */
export async function action({ request, context }: ActionFunctionArgs) {
  const { form } = await guardForm(request, context)
  // Any text parses: only a sign-in link opened on another device reads it.
  const { email } = EmailActionFormSchema.parse(Object.fromEntries(form))
  return respond(await applyEmailAction(request, email, context))
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
