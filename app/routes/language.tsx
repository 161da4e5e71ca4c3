import { data, type ActionFunctionArgs } from 'react-router'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { isLocale } from '~/lib/i18n'
import { guardForm } from '~/.server/policy/form-guard'
import { saveLocale, visitGoesToSignIn } from '~/.server/preferences'

/** Sets the language cookie; a plain form post comes back to the page it came from. */
export async function action({ request, context }: ActionFunctionArgs) {
  const { form } = await guardForm(request, context)
  const locale = form.get('locale')
  if (!isLocale(locale)) throw data({ reason: 'bad-form' }, { status: 400 })
  return saveLocale(form, locale)
}

export const loader = visitGoesToSignIn

/** A page route, not a resource route, so that the language switch's errors show the translated error page. */
export default function Language() {
  return null
}

export const ErrorBoundary = GeneralErrorBoundary
