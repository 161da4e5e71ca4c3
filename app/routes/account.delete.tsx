import { Link } from 'react-router'
import { useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { Field, FormAlert, SubmitButton, useAfterSubmission } from '~/components/forms'
import { ErrorAlert } from '~/components/local-time'
import { SecureForm } from '~/components/secure-form'
import { routeHeaders } from '~/lib/headers'
import { EMAIL_MAX_LENGTH } from '~/lib/limits'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { DeleteAccountFormSchema } from '~/lib/schemas'
import { ACCOUNT_PATHS, backToAccount, confirmFirst, deleteOwnAccount, requireConfirmed, requireSignedIn } from '~/.server/auth/account'
import { guardForm, page, respond } from '~/.server/result'
import { withPageStrings } from '~/lib/i18n-browser'
import type { Route } from './+types/account.delete'

export const headers = routeHeaders

export const meta: Route.MetaFunction = ({ matches, loaderData }) =>
  pageTitle(matches, loaderData?.deleted ? 'deleteAccount.doneTitle' : 'meta.accountDelete', NOT_INDEXED)

const PATH = ACCOUNT_PATHS.delete

export const clientLoader = (args: Route.ClientLoaderArgs) => withPageStrings(args)

/**
 * The form needs "Confirm it's you" (ADR 036). `?deleted` is the page after the deletion, signed
 * out by then: it says only that, to anyone.
 */
export async function loader({ request, url }: Route.LoaderArgs) {
  if (url.searchParams.has('deleted')) return respond(page({ deleted: true, email: '' }))
  const user = await requireSignedIn(request)
  if (!user.email) throw backToAccount()
  if (!user.recentIdToken) throw confirmFirst(PATH)
  return respond(page({ deleted: false, email: user.email }))
}

export async function action({ request, context }: Route.ActionArgs) {
  const { form } = await guardForm(request, context)
  const confirmed = await requireConfirmed(request, PATH)
  // Any text parses: the flow compares it with the account's address.
  const { email } = DeleteAccountFormSchema.parse(Object.fromEntries(form))
  return respond(await deleteOwnAccount(request, confirmed, email, context))
}

export default function DeleteAccount({ loaderData: { deleted, email }, actionData: result }: Route.ComponentProps) {
  const { t } = useTranslation()
  const formRef = useRef<HTMLFormElement>(null)
  useAfterSubmission(formRef, result)
  if (deleted) {
    return (
      <>
        <h1>{t('deleteAccount.doneTitle')}</h1>
        <FormAlert tone="success">{t('deleteAccount.done')}</FormAlert>
        <p>
          <Link to="/">{t('logout.backToSignIn')}</Link>
        </p>
      </>
    )
  }
  // The project forbids it: its message, and nothing to type again or press, only the way back.
  const restricted = result?.formError === 'deleteAccount.restricted'
  return (
    <>
      <h1>{t('deleteAccount.title')}</h1>
      {restricted ? null : <p className="subtitle">{t('deleteAccount.intro')}</p>}
      <ErrorAlert message={result?.formError} at={result?.retryAt} />
      {restricted ? null : (
        <SecureForm ref={formRef} className="stack" noValidate>
          <Field
            label={<ConfirmLabel email={email} />}
            name="email"
            type="email"
            autoComplete="off"
            required
            maxLength={EMAIL_MAX_LENGTH}
            defaultValue={result?.email ?? ''}
            error={result?.emailError ? t(result.emailError) : null}
            data-personal
          />
          <SubmitButton danger pendingLabel={t('deleteAccount.pending')}>{t('deleteAccount.submit')}</SubmitButton>
        </SecureForm>
      )}
      <p>
        <Link to="/account">{t('account.back')}</Link>
      </p>
    </>
  )
}

/** "Type demo@example.com to confirm": the address to type, whole and set apart, kept out of Session Replay (ADR 030). */
function ConfirmLabel({ email }: { email: string }) {
  const { t } = useTranslation()
  const [before = '', after = ''] = t('deleteAccount.confirmEmail', { email: '\u0000' }).split('\u0000')
  return (
    <>
      {before}
      <strong className="address" data-personal>
        {email}
      </strong>
      {after}
    </>
  )
}
