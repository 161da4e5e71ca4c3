import { data, redirect, type ActionFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { COOKIES, setCookie } from '~/.server/cookies'
import { guardForm } from '~/.server/policy/form-guard'
import { localPathOr } from '~/.server/policy/redirect'

/** Accepting the privacy notice: a cookie, then back to the page (or data for the fetcher). */
export async function action({ request, context }: ActionFunctionArgs) {
  const { form } = await guardForm(request, context)
  const headers = {
    'Set-Cookie': setCookie(COOKIES.consent, '1'),
    'Cache-Control': 'no-store',
  }
  if (form.get('inPlace') === '1') return data({ accepted: true }, { headers })
  return redirect(localPathOr(form.get('returnTo')), { status: 303, headers })
}

/** Only posts come here; a visit goes to the sign-in page. */
export function loader() {
  return redirect('/')
}

/** A page route, not a resource route, so that a refused post shows the translated error page. */
export default function Consent() {
  return null
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
