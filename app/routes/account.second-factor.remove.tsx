import {
  data,
  Link,
  redirect,
  useActionData,
  useLoaderData,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from 'react-router'
import { useTranslation } from 'react-i18next'
import { FormAlert, SubmitButton } from '~/components/forms'
import { SecondFactorName } from '~/components/second-factor-name'
import { SecureForm } from '~/components/secure-form'
import { NO_STORE, routeHeaders } from '~/lib/headers'
import type { TranslationKey } from '~/lib/i18n'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { formText } from '~/lib/schemas'
import { confirmFirst, requireSignedIn } from '~/.server/auth/account'
import { readRecentLogin } from '~/.server/auth/recent-login'
import { removeFactor } from '~/.server/auth/second-factors'
import { readAccount } from '~/.server/auth/session'
import { guardForm } from '~/.server/policy/form-guard'

export const headers = routeHeaders

export const meta: MetaFunction = ({ matches }) => pageTitle(matches, 'secondFactors.removeTitle', NOT_INDEXED)

/** The factor is named in the query (`?factor=`, its enrolment id, no secret): "Confirm it's you" comes back to it (ADR 041). */
const pathFor = (factor: string) => `/account/second-factor/remove?${new URLSearchParams({ factor })}`

/** Names the factor, and says so when it is the last one: the account then has its password only. */
export async function loader({ request, url }: LoaderFunctionArgs) {
  const user = await requireSignedIn(request)
  const id = url.searchParams.get('factor') ?? ''
  const account = await readAccount(user.uid).catch(() => {
    throw data({ reason: 'identity-unavailable' }, { status: 503, headers: NO_STORE })
  })
  const factor = account.secondFactors.find((f) => f.id === id)
  if (!factor) throw redirect('/account', { headers: NO_STORE })
  if (!readRecentLogin(request, user)) throw confirmFirst(pathFor(id))
  const { enrolledAt: _, ...shown } = factor
  return data({ factor: shown, last: account.secondFactors.length === 1 }, { headers: NO_STORE })
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { form } = await guardForm(request, context)
  const user = await requireSignedIn(request)
  const id = formText(form, 'factor')
  const idToken = readRecentLogin(request, user)
  if (!idToken) return confirmFirst(pathFor(id))
  const outcome = await removeFactor(request, user, idToken, id, context)
  switch (outcome.status) {
    case 'confirm':
      return confirmFirst(pathFor(id))
    case 'expired':
      // Already gone (removed in another tab, or by the emailed undo link): the list says what is left.
      return redirect('/account', { status: 303, headers: NO_STORE })
    case 'done': {
      const headers = new Headers(NO_STORE)
      for (const cookie of outcome.setCookies) headers.append('Set-Cookie', cookie)
      return redirect('/account?done=factor-removed', { status: 303, headers })
    }
    case 'error':
      return data<{ formError: TranslationKey }>(
        { formError: outcome.message },
        { status: outcome.httpStatus, headers: NO_STORE },
      )
  }
}

export default function RemoveSecondFactor() {
  const { t } = useTranslation()
  const { factor, last } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>() as { formError: TranslationKey } | undefined
  return (
    <>
      <h1>{t('secondFactors.removeTitle')}</h1>
      {result?.formError ? <FormAlert>{t(result.formError)}</FormAlert> : null}
      <p>{t('secondFactors.removeIntro')}</p>
      <div className="factor-card">
        <SecondFactorName factor={factor} />
      </div>
      <p>{last ? t('secondFactors.removeLast') : t('secondFactors.removeOther')}</p>
      <SecureForm className="stack">
        <input type="hidden" name="factor" value={factor.id} />
        <SubmitButton pendingLabel={t('secondFactors.removeButton')}>{t('secondFactors.removeButton')}</SubmitButton>
      </SecureForm>
      <p>
        <Link to="/account">{t('account.back')}</Link>
      </p>
    </>
  )
}
