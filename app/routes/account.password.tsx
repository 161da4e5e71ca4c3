import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import { FormAlert } from '~/components/forms'
import { ErrorAlert } from '~/components/local-time'
import { NewPasswordForm } from '~/components/new-password-form'
import { routeHeaders } from '~/lib/headers'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { NewPasswordFormSchema } from '~/lib/schemas'
import { signInLink } from '~/lib/sign-in-link'
import { ACCOUNT_PATHS, backToAccount, changeOwnPassword, confirmFirst, requireConfirmed, requireSignedIn } from '~/.server/auth/account'
import { getConfig } from '~/.server/config'
import { guardForm, page, respond } from '~/.server/result'
import { withPageStrings } from '~/lib/i18n-browser'
import type { Route } from './+types/account.password'

export const headers = routeHeaders

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'meta.accountPassword', NOT_INDEXED)

const PATH = ACCOUNT_PATHS.password

export const clientLoader = (args: Route.ClientLoaderArgs) => withPageStrings(args)

/** The form needs a sign-in less than 5 minutes old ("Confirm it's you", ADR 036), and a password to change. */
export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireSignedIn(request)
  if (!user.email) throw backToAccount()
  if (!user.recentIdToken) throw confirmFirst(PATH)
  return respond(page({ email: user.email, minLength: getConfig().passwordMinLength }))
}

export async function action({ request, context }: Route.ActionArgs) {
  const { form } = await guardForm(request, context)
  const confirmed = await requireConfirmed(request, PATH)
  // Any text parses: the password policy judges it, with its own messages.
  const input = NewPasswordFormSchema.parse(Object.fromEntries(form))
  return respond(await changeOwnPassword(request, confirmed, input, context))
}

export default function ChangePassword({ loaderData: { email, minLength }, actionData: result }: Route.ComponentProps) {
  const { t } = useTranslation()

  if (result?.status === 'signed-out') {
    return (
      <>
        <h1>{t('changePassword.title')}</h1>
        <FormAlert tone="success">{t('account.passwordChangedSignedOut')}</FormAlert>
        <Link to={signInLink('/account')} className="button-primary button-link">
          {t('newPassword.backToSignIn')}
        </Link>
      </>
    )
  }
  const failed = result?.status === 'error' ? result : null
  return (
    <>
      <h1>{t('changePassword.title')}</h1>
      <p className="subtitle">{t('changePassword.intro')}</p>
      <ErrorAlert message={failed?.message} at={failed?.retryAt} />
      <NewPasswordForm
        email={email}
        minLength={minLength}
        result={result}
        rejection={result?.status === 'invalid' ? result : null}
      />
      <p>
        <Link to="/account">{t('account.back')}</Link>
      </p>
    </>
  )
}
