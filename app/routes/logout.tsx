import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import { FormAlert, SubmitButton } from '~/components/forms'
import { SecureForm } from '~/components/secure-form'
import { routeHeaders } from '~/lib/headers'
import { pageTitle } from '~/lib/meta'
import { LogoutFormSchema } from '~/lib/schemas'
import { errorPage, guardForm, page, parseForm, respond } from '~/.server/result'
import { lastLogout, logOut } from '~/.server/auth/logout'
import { pageSession } from '~/.server/auth/session'
import type { Route } from './+types/logout'

export const headers = routeHeaders

/** Once signed out, the page says so in its heading and title: a state, no longer a question. */
export const meta: Route.MetaFunction = ({ matches, loaderData }) =>
  pageTitle(matches, loaderData && !loaderData.signedIn ? 'logout.doneTitle' : 'logout.title')

/** GET never changes state: it only offers the button. */
export async function loader({ request }: Route.LoaderArgs) {
  const { session, cookies } = await pageSession(request)
  // While the identity service cannot judge the cookie, the visitor may still want to leave.
  const signedIn = session.status === 'signed-in' || session.status === 'unavailable'
  return respond(page({ signedIn, everywhere: !signedIn && lastLogout(request) === 'everywhere' }, { cookies }))
}

export async function action({ request, context }: Route.ActionArgs) {
  const { form } = await guardForm(request, context)
  const parsed = parseForm(LogoutFormSchema, form, {})
  if (!parsed.ok) return respond(errorPage(400, 'bad-form'))
  return respond(await logOut(request, parsed.data.intent === 'everywhere', context))
}

export default function Logout({ loaderData: { signedIn, everywhere } }: Route.ComponentProps) {
  const { t } = useTranslation()
  return (
    <>
      <h1>{t(signedIn ? 'logout.title' : 'logout.doneTitle')}</h1>
      {!signedIn ? (
        <FormAlert tone="success">{t(everywhere ? 'logout.everywhereDone' : 'logout.done')}</FormAlert>
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
