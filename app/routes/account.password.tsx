import {
  data,
  redirect,
  Link,
  useActionData,
  useLoaderData,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from 'react-router'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { Field, FormAlert, SubmitButton, useAfterSubmission, useFieldValue } from '~/components/forms'
import { PasswordRules } from '~/components/password-rules'
import { SecureForm } from '~/components/secure-form'
import { NO_STORE, routeHeaders } from '~/lib/headers'
import { PASSWORD_MAX_LENGTH } from '~/lib/limits'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { passwordRulesAttribute } from '~/lib/password-policy'
import { formText } from '~/lib/schemas'
import { changeOwnPassword, confirmFirst, requireSignedIn } from '~/.server/auth/account'
import { readRecentLogin } from '~/.server/auth/recent-login'
import { getConfig } from '~/.server/config'
import { guardForm } from '~/.server/policy/form-guard'

export const headers = routeHeaders

export const meta: MetaFunction = ({ matches }) => pageTitle(matches, 'meta.accountPassword', NOT_INDEXED)

const PATH = '/account/password'

/** The form needs a sign-in less than 5 minutes old ("Confirm it's you", ADR 036), and a password to change. */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireSignedIn(request)
  if (!user.email) throw redirect('/account', { headers: NO_STORE })
  if (!readRecentLogin(request, user)) throw confirmFirst(PATH)
  return data({ email: user.email, minLength: getConfig().passwordMinLength }, { headers: NO_STORE })
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { form } = await guardForm(request, context)
  const user = await requireSignedIn(request)
  const idToken = readRecentLogin(request, user)
  if (!user.email || !idToken) return confirmFirst(PATH)
  const outcome = await changeOwnPassword(
    request,
    { ...user, email: user.email },
    idToken,
    { password: formText(form, 'password'), confirmation: formText(form, 'confirmation') },
    context,
  )
  if (outcome.status === 'confirm') return confirmFirst(PATH)
  if (outcome.status === 'done') {
    const headers = new Headers(NO_STORE)
    for (const cookie of outcome.setCookies) headers.append('Set-Cookie', cookie)
    // Signed in again here (or through the second-factor step): the account page says so, after a redirect (the CSRF token was renewed).
    if (outcome.location) return redirect(outcome.location, { status: 303, headers })
    return data({ status: 'signed-out' } as const, { headers })
  }
  return data(outcome, { status: outcome.httpStatus, headers: NO_STORE })
}

export default function ChangePassword() {
  const { t } = useTranslation()
  const { email, minLength } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const { value: password, setValue: setPassword, field: passwordField } = useFieldValue()
  const formRef = useRef<HTMLFormElement>(null)
  useAfterSubmission(formRef, result)
  // An answer empties the password fields; the live rules follow them.
  useEffect(() => {
    if (result) setPassword('')
  }, [result, setPassword])

  if (result?.status === 'signed-out') {
    return (
      <>
        <h1>{t('changePassword.title')}</h1>
        <FormAlert tone="success">{t('account.passwordChangedSignedOut')}</FormAlert>
        <Link to="/?redirect=%2Faccount" className="button-primary button-link">
          {t('newPassword.backToSignIn')}
        </Link>
      </>
    )
  }
  const passwordError = result?.status === 'invalid' ? result.passwordError : null
  const confirmationError = result?.status === 'invalid' ? result.confirmationError : null
  const formError = result?.status === 'error' ? result.message : null
  return (
    <>
      <h1>{t('changePassword.title')}</h1>
      <p className="subtitle">{t('changePassword.intro')}</p>
      {formError ? <FormAlert>{t(formError)}</FormAlert> : null}
      <SecureForm ref={formRef} className="stack" noValidate>
        {/* Lets password managers save the new password under the right account. */}
        <input type="text" name="username" autoComplete="username" value={email} readOnly hidden />
        <Field
          label={t('newPassword.password')}
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={minLength}
          maxLength={PASSWORD_MAX_LENGTH}
          passwordrules={passwordRulesAttribute(minLength)}
          {...passwordField}
          error={
            passwordError
              ? t(passwordError, { count: passwordError === 'newPassword.tooLong' ? PASSWORD_MAX_LENGTH : minLength })
              : null
          }
          hint={<PasswordRules id="password-rules" password={password} minLength={minLength} />}
        />
        <Field
          label={t('newPassword.confirm')}
          name="confirmation"
          type="password"
          autoComplete="new-password"
          required
          maxLength={PASSWORD_MAX_LENGTH}
          error={confirmationError ? t(confirmationError) : null}
        />
        <SubmitButton pendingLabel={t('newPassword.pending')}>{t('newPassword.submit')}</SubmitButton>
      </SecureForm>
      <p>
        <Link to="/account">{t('account.back')}</Link>
      </p>
    </>
  )
}
