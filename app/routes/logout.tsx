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
import { endEverySession, endThisSession, logoutCookies } from '~/.server/auth/logout'
import { clearSessionCookie, getSession } from '~/.server/auth/session'
import { formText } from '~/lib/schemas'
import { syncToken } from '~/.server/auth/token-sync'

export const headers = routeHeaders

export const meta: MetaFunction = ({ matches }) => pageTitle(matches, 'meta.logout')

/** GET never changes state: it only offers the button. */
export async function loader({ request }: LoaderFunctionArgs) {
  const session = await getSession(request)
  const headers = new Headers(NO_STORE)
  if (session.status === 'invalid') headers.append('Set-Cookie', clearSessionCookie())
  // While the identity service cannot judge the cookie, the visitor may still want to leave.
  return data({ signedIn: session.status === 'signed-in' || session.status === 'unavailable' }, { headers })
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { form } = await guardForm(request, context)
  const everywhere = formText(form, 'intent') === 'everywhere'
  const session = await getSession(request)
  if (session.status === 'signed-in') {
    // "Log out of all devices" revokes every session of the account; "Log out" ends this one only
    // (its cookie is refused from now on, even replayed), and the account's other devices go on.
    if (everywhere) await endEverySession(session.user.uid).catch(() => undefined)
    securityEvent(everywhere ? 'logout-everywhere' : 'logout', {
      reqId: context.requestId,
      ip: context.clientIp,
      email: session.user.email ?? undefined,
    })
  }
  // Refused from now on even when the service could not be asked, or after a revocation.
  await endThisSession(request).catch(() => undefined)
  if (session.status !== 'invalid' || !session.tokenSyncTold) await syncToken(null)
  const headers = new Headers(NO_STORE)
  for (const cookie of logoutCookies()) headers.append('Set-Cookie', cookie)
  return data({ done: true, everywhere }, { headers })
}

export default function Logout() {
  const { t } = useTranslation()
  const { signedIn } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const done = result?.done || !signedIn
  return (
    <>
      <h1>{t('logout.title')}</h1>
      {done ? (
        <FormAlert tone="success">{t(result?.everywhere ? 'logout.everywhereDone' : 'logout.done')}</FormAlert>
      ) : (
        <SecureForm className="stack">
          <p>{t('logout.confirm')}</p>
          <SubmitButton pendingLabel={t('logout.submit')}>{t('logout.submit')}</SubmitButton>
          <button type="submit" name="intent" value="everywhere" className="button-secondary button-block">
            {t('logout.everywhere')}
          </button>
        </SecureForm>
      )}
      <p>
        <Link to="/">{t('logout.backToSignIn')}</Link>
      </p>
    </>
  )
}
