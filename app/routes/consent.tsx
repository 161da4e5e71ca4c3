import { GeneralErrorBoundary } from '~/components/error-boundary'
import { PreferenceFormSchema } from '~/lib/schemas'
import { saveConsent, visitGoesToSignIn } from '~/.server/preferences'
import { errorPage, guardForm, parseForm, respond } from '~/.server/result'
import type { Route } from './+types/consent'

/** Accepting the privacy notice: a cookie, then back to the page (or data for the fetcher). */
export async function action({ request, context }: Route.ActionArgs) {
  const { form } = await guardForm(request, context)
  const parsed = parseForm(PreferenceFormSchema, form, {})
  if (!parsed.ok) return respond(errorPage(400, 'bad-form'))
  return respond(saveConsent(parsed.data))
}

export const loader = visitGoesToSignIn

/** A page route, not a resource route, so that a refused post shows the translated error page. */
export default function Consent() {
  return null
}

export const ErrorBoundary = GeneralErrorBoundary
