import {
  data,
  Link,
  useActionData,
  useLoaderData,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from 'react-router'
import { useTranslation } from 'react-i18next'
import { FormAlert, SubmitButton } from '~/components/forms'
import { SecureForm } from '~/components/secure-form'
import { NO_STORE, routeHeaders } from '~/lib/headers'
import { pageTitle } from '~/lib/meta'
import { guardForm } from '~/.server/policy/form-guard'
import { securityEvent } from '~/.server/ops/security-events'
import { logoutCookies } from '~/.server/auth/logout'
import { getSession, revokeSessions } from '~/.server/auth/session'
import { syncToken } from '~/.server/auth/token-sync'

export const headers = routeHeaders

export const meta: MetaFunction = ({ matches }) => pageTitle(matches, 'meta.logout')

/** GET never changes state: it only offers the button. */
export async function loader({ request }: LoaderFunctionArgs) {
  const session = await getSession(request)
  // While the identity service cannot judge the cookie, the visitor may still want to leave.
  return data({ signedIn: session.status === 'signed-in' || session.status === 'unavailable' }, { headers: NO_STORE })
}

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request, context)
  const session = await getSession(request)
  if (session.status === 'signed-in') {
    // Every session of this user ends, here and on other devices: the old cookie stops working.
    await revokeSessions(session.user.uid).catch(() => undefined)
    securityEvent('logout', { reqId: context.requestId, ip: context.clientIp, email: session.user.email ?? undefined })
  }
  await syncToken(null)
  const headers = new Headers(NO_STORE)
  for (const cookie of logoutCookies()) headers.append('Set-Cookie', cookie)
  return data({ done: true }, { headers })
}

export default function Logout() {
  const { t } = useTranslation()
  const { signedIn } = useLoaderData<typeof loader>()
  const done = useActionData<typeof action>()?.done || !signedIn
  return (
    <>
      <h1>{t('logout.title')}</h1>
      {done ? (
        <FormAlert tone="success">{t('logout.done')}</FormAlert>
      ) : (
        <SecureForm className="stack">
          <p>{t('logout.confirm')}</p>
          <SubmitButton pendingLabel={t('logout.submit')}>{t('logout.submit')}</SubmitButton>
        </SecureForm>
      )}
      <p>
        <Link to="/">{t('logout.backToSignIn')}</Link>
      </p>
    </>
  )
}
