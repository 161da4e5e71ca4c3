import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import { SubmitButton } from '~/components/forms'
import { ErrorAlert } from '~/components/local-time'
import { SecondFactorName } from '~/components/second-factor-name'
import { SecureForm } from '~/components/secure-form'
import { routeHeaders } from '~/lib/headers'
import type { FieldErrors } from '~/lib/limits'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { RemoveFactorFormSchema } from '~/lib/schemas'
import { backToAccount, confirmFirst, requireSignedIn } from '~/.server/auth/account'
import { removeFactor, removalPath, type RemovalRefusal } from '~/.server/auth/second-factors'
import { readAccount } from '~/.server/auth/identity-admin'
import { type Answers, guardForm, page, parseForm, respond, unavailable } from '~/.server/result'
import { withPageStrings } from '~/lib/i18n-browser'
import type { Route } from './+types/account.second-factor.remove'

export const headers = routeHeaders

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'secondFactors.removeTitle', NOT_INDEXED)

export const clientLoader = (args: Route.ClientLoaderArgs) => withPageStrings(args)

/** Names the factor, and says so when it is the last one: the account then has its password only. */
export async function loader({ request, url }: Route.LoaderArgs) {
  const user = await requireSignedIn(request)
  const id = url.searchParams.get('factor') ?? ''
  const account = await readAccount(user.uid).catch(() => respond(unavailable()))
  const factor = account.secondFactors.find((f) => f.id === id)
  if (!factor) throw backToAccount()
  if (!user.recentIdToken) throw confirmFirst(removalPath(id))
  const { enrolledAt: _, ...shown } = factor
  return respond(page({ factor: shown, last: account.secondFactors.length === 1 }))
}

/** What the page reads from any answer: the form's refusal, or the service's. */
type ActionData = Answers<RemovalRefusal | { fieldErrors: FieldErrors }>

export async function action({ request, context }: Route.ActionArgs) {
  const { form } = await guardForm(request, context)
  const user = await requireSignedIn(request)
  const parsed = parseForm(RemoveFactorFormSchema, form, {})
  if (!parsed.ok) return respond<ActionData>(parsed.result)
  return respond<ActionData>(await removeFactor(request, user, parsed.data.factor, context))
}

export default function RemoveSecondFactor({ loaderData: { factor, last }, actionData: result }: Route.ComponentProps) {
  const { t } = useTranslation()
  return (
    <>
      <h1>{t('secondFactors.removeTitle')}</h1>
      <ErrorAlert message={result?.formError} at={result?.retryAt} />
      <p>{t('secondFactors.removeIntro')}</p>
      <div className="factor-card">
        <SecondFactorName factor={factor} />
      </div>
      {last ? (
        <div className="callout-warning">
          <p>{t('secondFactors.removeLast')}</p>
        </div>
      ) : (
        <p>{t('secondFactors.removeOther')}</p>
      )}
      <SecureForm className="stack">
        <input type="hidden" name="factor" value={factor.id} />
        <SubmitButton danger pendingLabel={t('secondFactors.removeButton')}>{t('secondFactors.removeButton')}</SubmitButton>
      </SecureForm>
      <p>
        <Link to="/account">{t('account.back')}</Link>
      </p>
    </>
  )
}
