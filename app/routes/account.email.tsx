import {
  data,
  Link,
  useActionData,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from 'react-router'
import { useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { Field, FormAlert, SubmitButton, useAfterSubmission } from '~/components/forms'
import { SecureForm } from '~/components/secure-form'
import { NO_STORE, routeHeaders } from '~/lib/headers'
import type { TranslationKey } from '~/lib/i18n'
import { EMAIL_MAX_LENGTH } from '~/lib/limits'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { ForgotPasswordFormSchema, fieldErrorsOf, formText } from '~/lib/schemas'
import { confirmFirst, requestEmailChange, requireSignedIn } from '~/.server/auth/account'
import { readRecentLogin } from '~/.server/auth/recent-login'
import { guardForm } from '~/.server/policy/form-guard'

export const headers = routeHeaders

export const meta: MetaFunction = ({ matches }) => pageTitle(matches, 'meta.accountEmail', NOT_INDEXED)

const PATH = '/account/email'

/** Sending the link needs the fresh ID token of "Confirm it's you" (ADR 036). */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireSignedIn(request)
  if (!readRecentLogin(request, user)) throw confirmFirst(PATH)
  return data({}, { headers: NO_STORE })
}

type ActionData = { sent?: boolean; email?: string; emailError?: TranslationKey; formError?: TranslationKey }

export async function action({ request, context }: ActionFunctionArgs) {
  const { form } = await guardForm(request, context)
  const user = await requireSignedIn(request)
  const idToken = readRecentLogin(request, user)
  if (!idToken) return confirmFirst(PATH)
  // Kept for the form when it comes back.
  const email = formText(form, 'email').trim().slice(0, EMAIL_MAX_LENGTH)
  const parsed = ForgotPasswordFormSchema.safeParse({ email: form.get('email') })
  if (!parsed.success) {
    return data<ActionData>({ email, emailError: fieldErrorsOf(parsed.error).email }, { status: 400, headers: NO_STORE })
  }
  const outcome = await requestEmailChange(request, user, idToken, parsed.data.email, context)
  if (outcome.status === 'confirm') return confirmFirst(PATH)
  if (outcome.status === 'error') {
    return data<ActionData>({ email, formError: outcome.message }, { status: outcome.httpStatus, headers: NO_STORE })
  }
  return data<ActionData>({ sent: true }, { headers: NO_STORE })
}

export default function ChangeEmail() {
  const { t } = useTranslation()
  const result = useActionData<typeof action>() as ActionData | undefined
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
          {result?.formError ? <FormAlert>{t(result.formError)}</FormAlert> : null}
          <SecureForm ref={formRef} className="stack" noValidate>
            <Field
              label={t('changeEmail.newEmail')}
              name="email"
              type="email"
              autoComplete="email"
              required
              maxLength={EMAIL_MAX_LENGTH}
              defaultValue={result?.email ?? ''}
              error={result?.emailError ? t(result.emailError) : null}
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
