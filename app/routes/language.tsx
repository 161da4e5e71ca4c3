import { data, redirect, type ActionFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { isLocale } from '~/lib/i18n'
import { COOKIES, setCookie } from '~/.server/cookies'
import { guardForm } from '~/.server/policy/form-guard'
import { localPathOr } from '~/.server/policy/redirect'

/** Sets the language cookie; a plain form post comes back to the page it came from. */
export async function action({ request, context }: ActionFunctionArgs) {
  const { form } = await guardForm(request, context)
  const locale = form.get('locale')
  if (!isLocale(locale)) throw data({ reason: 'bad-form' }, { status: 400 })
  const headers = {
    'Set-Cookie': setCookie(COOKIES.locale, locale),
    'Cache-Control': 'no-store',
  }
  if (form.get('inPlace') === '1') return data({ locale }, { headers })
  return redirect(localPathOr(form.get('returnTo')), { status: 303, headers })
}

/** Only posts come here; a visit goes to the sign-in page. */
export function loader() {
  return redirect('/')
}

/** A page route, not a resource route, so that a refused post shows the translated error page. */
export default function Language() {
  return null
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
