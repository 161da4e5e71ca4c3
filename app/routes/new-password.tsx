import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useActionData, useLoaderData } from '@remix-run/react'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { Field, FormAlert, SubmitButton, useAfterSubmission, useFieldValue } from '~/components/forms'
import { PasswordRules } from '~/components/password-rules'
import { SecureForm } from '~/components/secure-form'
import { routeHeaders } from '~/lib/headers'
import { pageTitle } from '~/lib/meta'
import { PASSWORD_MAX_LENGTH } from '~/lib/limits'
import { passwordRulesAttribute } from '~/lib/password-policy'
import { formText } from '~/lib/schemas'
import { cleanLinkQuery, LINK_QUERY_MAX_LENGTH } from '~/.server/auth/email-actions'
import { guardForm } from '~/.server/policy/form-guard'
import { completePasswordReset, continueParams, inspectResetCode } from '~/.server/auth/new-password'
import { clearResetCodeCookie, keepResetCode, readResetCode } from '~/.server/auth/password-reset'

export const headers = routeHeaders

export const meta: MetaFunction = ({ matches }) =>
  pageTitle(matches, 'meta.newPassword', [{ name: 'robots', content: 'noindex, nofollow' }])

const noStore = { 'Cache-Control': 'no-store' }

/**
 * GET checks the code without spending it (mail scanners open links). On the first visit the
 * code moves from the address bar into a cookie and the page reloads on a clean URL.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url)
  const fromLink = url.searchParams.get('oobCode')
  // A link's other parameters go into the Location header below: a very long query is no link of ours.
  const tooLong = fromLink !== null && url.search.length > LINK_QUERY_MAX_LENGTH
  if (fromLink && !tooLong) {
    const clean = `/new-password${cleanLinkQuery(url.searchParams)}`
    const headers = new Headers(noStore)
    for (const cookie of keepResetCode(request, fromLink)) headers.append('Set-Cookie', cookie)
    throw redirect(clean, { headers })
  }
  const info = await inspectResetCode(tooLong ? null : readResetCode(request))
  if ('unavailable' in info) throw data({ reason: 'identity-unavailable' }, { status: info.unavailable })
  const signIn = continueParams(url.searchParams)
  return data(
    { ...info, signIn },
    { status: info.valid ? 200 : 400, headers: info.valid ? noStore : { ...noStore, 'Set-Cookie': clearResetCodeCookie() } },
  )
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { form, isBot } = await guardForm(request, context)
  const outcome = await completePasswordReset(
    {
      oobCode: readResetCode(request),
      password: formText(form, 'password'),
      confirmation: formText(form, 'confirmation'),
      isBot,
    },
    context,
  )
  const headers = outcome.status === 'done' || outcome.status === 'invalid-link' ? { ...noStore, 'Set-Cookie': clearResetCodeCookie() } : noStore
  return data(outcome, { status: outcome.httpStatus, headers })
}

export default function NewPassword() {
  const { t } = useTranslation()
  const loaderData = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const { value: password, setValue: setPassword, field: passwordField } = useFieldValue()
  const formRef = useRef<HTMLFormElement>(null)
  useAfterSubmission(formRef, result)
  // An answer empties the password fields; the live rules follow them.
  useEffect(() => {
    if (result) setPassword('')
  }, [result, setPassword])
  const signInLink = `/${loaderData.signIn ? `?${loaderData.signIn}` : ''}`

  if (result?.status === 'done') {
    return (
      <>
        <h1>{t('newPassword.title')}</h1>
        <FormAlert tone="success">{t('newPassword.success')}</FormAlert>
        <p>
          <Link to={signInLink}>{t('newPassword.backToSignIn')}</Link>
        </p>
      </>
    )
  }
  if (!loaderData.valid || result?.status === 'invalid-link') {
    const again = loaderData.email ? `/forgot-password?${new URLSearchParams({ email: loaderData.email })}` : '/forgot-password'
    return (
      <>
        <h1>{t('newPassword.title')}</h1>
        <FormAlert>{t('error.invalidLink')}</FormAlert>
        <p className="links">
          <Link to={again}>{t('newPassword.requestNew')}</Link>
          <Link to={signInLink}>{t('error.backToSignIn')}</Link>
        </p>
      </>
    )
  }

  const { minLength } = loaderData
  const passwordError = result?.status === 'invalid' ? result.passwordError : null
  const confirmationError = result?.status === 'invalid' ? result.confirmationError : null
  return (
    <>
      <h1>{t('newPassword.title')}</h1>
      <p className="subtitle">{t('newPassword.subtitle', { user: loaderData.email })}</p>
      {result?.status === 'error' ? <FormAlert>{t(result.message)}</FormAlert> : null}
      <SecureForm ref={formRef} className="stack" noValidate>
        {/* Lets password managers save the new password under the right account. */}
        <input type="text" name="username" autoComplete="username" value={loaderData.email} readOnly hidden />
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
              ? t(passwordError, {
                  count: passwordError === 'newPassword.tooLong' ? PASSWORD_MAX_LENGTH : minLength,
                })
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
    </>
  )
}
