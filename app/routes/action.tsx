import type { ShouldRevalidateFunction } from 'react-router'
import { useRef } from 'react'
import { actionTitle, EmailActionConfirm, EmailActionDone } from '~/components/email-action'
import { ExpiredLink, type Recovery } from '~/components/expired-link'
import { useAfterSubmission } from '~/components/forms'
import { withPageStrings } from '~/lib/i18n-browser'
import { routeHeaders } from '~/lib/headers'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { EmailActionFormSchema } from '~/lib/schemas'
import { applyEmailAction, emailActionPage, type EmailActionMode } from '~/.server/auth/email-actions'
import { guardForm, respond } from '~/.server/result'
import type { Route } from './+types/action'

export const headers = routeHeaders

export const clientLoader = (args: Route.ClientLoaderArgs) => withPageStrings(args)

/** The title is the page's heading: what the link does, or that it no longer works. */
export const meta: Route.MetaFunction = ({ matches, loaderData }) =>
  pageTitle(matches, actionTitle(loaderData?.page.mode ?? 'invalid'), NOT_INDEXED)

/** The guard for emailed links (ADR 011): GETs check the code, never spend it. */
export async function loader({ request, url }: Route.LoaderArgs) {
  return respond(await emailActionPage(request, url))
}

/** After 'Continue' the link is spent: the page is the action's answer, not the loader's again (a 400). */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formAction, defaultShouldRevalidate }) =>
  formAction?.startsWith('/action') ? false : defaultShouldRevalidate

/** 'Continue': spends the code (a sign-in link signs in and redirects). */
export async function action({ request, context }: Route.ActionArgs) {
  const { form } = await guardForm(request, context)
  // Any text parses: only a sign-in link opened on another device reads it.
  const { email } = EmailActionFormSchema.parse(Object.fromEntries(form))
  return respond(await applyEmailAction(request, email, context))
}

export default function EmailAction({ loaderData: { page }, actionData }: Route.ComponentProps) {
  const result = actionData?.result
  const formRef = useRef<HTMLFormElement>(null)
  useAfterSubmission(formRef, result)

  if (result?.status === 'done') return <EmailActionDone result={result} />
  if (result?.status === 'invalid-link') return <ExpiredLink again={recoveryOf(result.kind)} />
  if (page.mode === 'invalid') return <ExpiredLink again={recoveryOf(page.kind)} />
  return <EmailActionConfirm ref={formRef} page={page} error={result?.status === 'error' ? result : null} />
}

/**
 * Where each kind of dead link starts again: its own flow, never another's. A verification and a
 * second factor are the account page's; a new address is asked from "Change email address"; a
 * sign-in link from the sign-in page; an undone address change calls for a new password. A link
 * of no known kind has only the way back to sign-in.
 */
const RECOVERIES: Record<EmailActionMode, Recovery> = {
  verifyEmail: { to: '/account', label: 'expiredLink.toAccount', hint: 'expiredLink.verifyEmail' },
  verifyAndChangeEmail: { to: '/account/email', label: 'expiredLink.toChangeEmail', hint: 'expiredLink.changeEmail' },
  signIn: { to: '/', label: 'expiredLink.newSignInLink', hint: 'expiredLink.signIn' },
  revertSecondFactorAddition: { to: '/account', label: 'expiredLink.toAccount', hint: 'expiredLink.revert' },
  recoverEmail: { to: '/forgot-password', label: 'emailAction.resetPassword', hint: 'emailAction.recoverEmailAdvice' },
}

const recoveryOf = (kind: EmailActionMode | null) => (kind ? RECOVERIES[kind] : null)
