import {
  Link,
  useActionData,
} from 'react-router'
import { useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { Field, FormAlert, SubmitButton, useAfterSubmission } from '~/components/forms'
import { Say } from '~/components/local-time'
import { SecureForm } from '~/components/secure-form'
import { routeHeaders } from '~/lib/headers'
import type { TranslationKey } from '~/lib/i18n'
import { EMAIL_MAX_LENGTH, type FieldErrors } from '~/lib/limits'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { EmailChangeFormSchema, keptEmail } from '~/lib/schemas'
import { ACCOUNT_PATHS, requestEmailChange, requireConfirmed } from '~/.server/auth/account'
import { guardForm } from '~/.server/policy/csrf'
import { page, parseForm, respond } from '~/.server/result'
import { withPageStrings } from '~/lib/i18n-browser'
import type { Route } from './+types/account.email'

export const headers = routeHeaders

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'meta.accountEmail', NOT_INDEXED)

const PATH = ACCOUNT_PATHS.email

/** Sending the link needs the fresh ID token of "Confirm it's you" (ADR 036). */
/** Coming from another page, the account area's strings load before its data (ADR 068). */
export const clientLoader = (args: Route.ClientLoaderArgs) => withPageStrings(args)

export async function loader({ request }: Route.LoaderArgs) {
  await requireConfirmed(request, PATH)
  return respond(page({}))
}

export async function action({ request, context }: Route.ActionArgs) {
  const { form } = await guardForm(request, context)
  const confirmed = await requireConfirmed(request, PATH)
  const parsed = parseForm(EmailChangeFormSchema, form, { email: keptEmail(form) })
  if (!parsed.ok) return respond<ActionData>(parsed.result)
  return respond<ActionData>(await requestEmailChange(request, confirmed, parsed.data.email, context))
}

/** What the page reads from any answer: the link sent, or the form again with what went wrong. */
type ActionData = { sent?: boolean; email?: string; fieldErrors?: FieldErrors; formError?: TranslationKey; retryAt?: number }

export default function ChangeEmail() {
  const { t } = useTranslation()
  const result = useActionData<typeof action>()
  const formRef = useRef<HTMLFormElement>(null)
  useAfterSubmission(formRef, result)
  return (
    <>
      <h1>{t('changeEmail.title')}</h1>
      {result?.sent ? (
        <FormAlert tone="success">{t('changeEmail.sent')}</FormAlert>
      ) : (
        <>
          <p className="subtitle">{t('changeEmail.intro')}</p>
          {result?.formError ? (
            <FormAlert>
              <Say message={result.formError} at={result.retryAt} />
            </FormAlert>
          ) : null}
          <SecureForm ref={formRef} className="stack" noValidate>
            <Field
              label={t('changeEmail.newEmail')}
              name="email"
              type="email"
              autoComplete="email"
              required
              maxLength={EMAIL_MAX_LENGTH}
              defaultValue={result?.email ?? ''}
              error={result?.fieldErrors?.email ? t(result.fieldErrors.email) : null}
              data-personal
            />
            <SubmitButton pendingLabel={t('changeEmail.pending')}>{t('changeEmail.submit')}</SubmitButton>
          </SecureForm>
        </>
      )}
      <p>
        <Link to="/account">{t('account.back')}</Link>
      </p>
    </>
  )
}
