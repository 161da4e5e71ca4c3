import { GeneralErrorBoundary } from '~/components/error-boundary'
import { LanguageFormSchema } from '~/lib/schemas'
import { saveLocale, visitGoesToSignIn } from '~/.server/preferences'
import { errorPage, guardForm, parseForm, respond } from '~/.server/result'
import type { Route } from './+types/language'

/** Sets the language cookie; a plain form post comes back to the page it came from. */
export async function action({ request, context }: Route.ActionArgs) {
  const { form } = await guardForm(request, context)
  // The switch offers only known languages: anything else is a forged form, for the error page.
  const parsed = parseForm(LanguageFormSchema, form, {})
  if (!parsed.ok) return respond(errorPage(400, 'bad-form'))
  return respond(saveLocale(parsed.data))
}

export const loader = visitGoesToSignIn

/** A page route, not a resource route, so that the language switch's errors show the translated error page. */
export default function Language() {
  return null
}

export const ErrorBoundary = GeneralErrorBoundary
