import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import { withAddresses } from '~/components/address'
import { ExpiredLink } from '~/components/expired-link'
import { FormAlert } from '~/components/forms'
import { ErrorAlert } from '~/components/local-time'
import { NewPasswordForm } from '~/components/new-password-form'
import { routeHeaders } from '~/lib/headers'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { NewPasswordFormSchema } from '~/lib/schemas'
import { completePasswordReset, newPasswordPage } from './new-password.server'
import { guardForm, respond } from '~/.server/result'
import type { Route } from './+types/new-password'

export const headers = routeHeaders

/** The title follows the page's state: the form, the password changed, or a link that no longer works. */
export const meta: Route.MetaFunction = ({ matches, loaderData }) =>
  pageTitle(matches, loaderData ? STATE_TITLES[loaderData.state] : 'newPassword.title', NOT_INDEXED)

const STATE_TITLES = {
  form: 'newPassword.title',
  done: 'newPassword.doneTitle',
  invalid: 'newPassword.invalidTitle',
} as const

/** GET checks the code without spending it; a link's first visit moves the code into a cookie. */
export async function loader({ request, url }: Route.LoaderArgs) {
  return respond(await newPasswordPage(request, url))
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const { form } = await guardForm(request, context)
  // Any text parses: the password policy judges it, with its own messages.
  const input = NewPasswordFormSchema.parse(Object.fromEntries(form))
  return respond(await completePasswordReset(request, url, input, context))
}

export default function NewPassword({ loaderData, actionData: result }: Route.ComponentProps) {
  const { t } = useTranslation()

  // This submission's own answer first: a link spent meanwhile (in another tab, which then set the done flag).
  if (loaderData.state === 'invalid' || result?.status === 'invalid-link') {
    const again = loaderData.email
      ? `/forgot-password?${new URLSearchParams({ email: loaderData.email })}`
      : '/forgot-password'
    return <ExpiredLink again={{ to: again, label: 'newPassword.requestNew' }} signIn={loaderData.signIn} />
  }

  if (loaderData.state === 'done') {
    return (
      <>
        <h1>{t('newPassword.doneTitle')}</h1>
        <FormAlert tone="success">{t('newPassword.success')}</FormAlert>
        <Link to={loaderData.signIn} className="button-primary button-link">
          {t('newPassword.backToSignIn')}
        </Link>
      </>
    )
  }
  const failed = result?.status === 'error' ? result : null
  return (
    <>
      <h1>{t('newPassword.title')}</h1>
      {/* Its {{user}} is the account's address, shown whole (wrapped when long). */}
      <p className="subtitle" data-personal>
        {withAddresses(t('newPassword.subtitle', { user: loaderData.email }), [loaderData.email])}
      </p>
      <ErrorAlert message={failed?.message} at={failed?.retryAt} />
      <NewPasswordForm
        email={loaderData.email}
        minLength={loaderData.minLength}
        result={result}
        rejection={result?.status === 'invalid' ? result : null}
      />
    </>
  )
}
