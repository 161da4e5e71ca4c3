import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import { SubmitButton } from '~/components/forms'
import { ErrorAlert } from '~/components/local-time'
import { SecureForm } from '~/components/secure-form'
import { formText } from '~/lib/form-text'
import { routeHeaders } from '~/lib/headers'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { backToAccount, confirmFirst, requireConfirmed, requireSignedIn } from '~/.server/auth/account'
import { listPasskeys, removalPath, removePasskey } from '~/.server/auth/passkeys'
import { getFlags } from '~/.server/ops/flags'
import { errorPage, guardForm, page, respond, unavailable } from '~/.server/result'
import { withPageStrings } from '~/lib/i18n-browser'
import type { Route } from './+types/account.passkeys.remove'

export const headers = routeHeaders

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'passkeys.removeTitle', NOT_INDEXED)

export const clientLoader = (args: Route.ClientLoaderArgs) => withPageStrings(args)

/** Names the passkey (`passkey`: its ref) after "Confirm it's you"; says so when it is the account's only way in. */
export async function loader({ request, url }: Route.LoaderArgs) {
  if (!(await getFlags()).passkeys) throw respond(errorPage(404, 'not-found'))
  const user = await requireSignedIn(request)
  const ref = url.searchParams.get('passkey') ?? ''
  const listed = await listPasskeys(user.uid).catch(() => respond(unavailable()))
  const passkey = listed.passkeys.find((p) => p.ref === ref)
  if (!passkey) throw backToAccount()
  if (!user.recentIdToken) throw confirmFirst(removalPath(ref))
  const last = !listed.otherWayIn && listed.passkeys.length === 1
  return respond(page({ ref, name: passkey.name, last }))
}

export async function action({ request, context }: Route.ActionArgs) {
  if (!(await getFlags()).passkeys) return respond(errorPage(404, 'not-found'))
  const { form } = await guardForm(request, context)
  const ref = formText(form, 'passkey')
  const confirmed = await requireConfirmed(request, removalPath(ref))
  return respond(await removePasskey(request, confirmed, ref, context))
}

export default function RemovePasskey({ loaderData: { ref, name, last }, actionData: result }: Route.ComponentProps) {
  const { t } = useTranslation()
  const formError = result?.formError ?? (last ? 'passkeys.lastMethod' : null)
  return (
    <>
      <h1>{t('passkeys.removeTitle')}</h1>
      <ErrorAlert message={formError} at={result?.retryAt} />
      <p>{t('passkeys.removeIntro')}</p>
      <div className="factor-card">
        <p className="factor-name" data-personal>
          {name}
        </p>
      </div>
      <p>{t('passkeys.removeNote')}</p>
      {last ? null : (
        <SecureForm className="stack">
          <input type="hidden" name="passkey" value={ref} />
          <SubmitButton danger pendingLabel={t('passkeys.removeButton')}>{t('passkeys.removeButton')}</SubmitButton>
        </SecureForm>
      )}
      <p>
        <Link to="/account">{t('account.back')}</Link>
      </p>
    </>
  )
}
