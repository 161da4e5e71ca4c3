import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { handleSsoCallback } from '../../server/sso'

/**
 * Where the sign-in provider sends the visitor back: GET (query) or POST (form_post providers,
 * which post cross-site, hence no CSRF token: the signed state cookie and its sessionId bind the
 * answer to this browser). Always a redirect, so the provider's answer leaves the address bar.
 */
async function callback(request: Request, context: LoaderFunctionArgs['context']) {
  const { location, status, setCookies } = await handleSsoCallback(request, context)
  const headers = new Headers({ 'Cache-Control': 'no-store' })
  for (const cookie of setCookies) headers.append('Set-Cookie', cookie)
  return redirect(location, { status, headers })
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  return callback(request, context)
}

export async function action({ request, context }: ActionFunctionArgs) {
  return callback(request, context)
}
