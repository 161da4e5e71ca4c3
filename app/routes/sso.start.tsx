import { data, redirect, Link, useActionData, type ActionFunctionArgs, type MetaFunction } from 'react-router'
import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { NO_STORE, routeHeaders } from '~/lib/headers'
import { pageTitle } from '~/lib/meta'
import { formText } from '~/lib/schemas'
import { guardForm } from '~/.server/policy/form-guard'
import { accountPath, requireSignedIn } from '~/.server/auth/account'
import { confirmThenOf } from '~/.server/auth/recent-login'
import { startSso } from '~/.server/auth/sso'

export const headers = routeHeaders

export const meta: MetaFunction = ({ matches }) => pageTitle(matches, 'meta.sso')

/**
 * The 'Use single sign-on' button of the sign-in form posts here (CSRF-checked), with "Keep me
 * signed in"; so does "Confirm it's you" for an account of the provider (`intent=confirm`, its
 * `next` and `then`: ADR 043). A form post may not be redirected to another origin (CSP
 * form-action 'self'), so the answer is a page that moves on by itself: a Refresh header without
 * JavaScript, location.assign with it, and a link for both.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const { form } = await guardForm(request, context)
  const confirm =
    formText(form, 'intent') === 'confirm'
      ? {
          uid: (await requireSignedIn(request)).uid,
          next: accountPath(formText(form, 'next') || null),
          then: confirmThenOf(formText(form, 'then') || null),
        }
      : null
  const outcome = await startSso(
    request,
    {
      redirect: form.has('redirect') ? formText(form, 'redirect') : null,
      authDomain: formText(form, 'authDomain') || null,
      remember: form.has('remember'),
      confirm,
    },
    context,
  )
  if (!outcome.ok) throw redirect(outcome.location, { status: 303, headers: NO_STORE })
  const headers = new Headers({ ...NO_STORE, Refresh: `0;url=${outcome.authUri}` })
  for (const cookie of outcome.setCookies) headers.append('Set-Cookie', cookie)
  return data({ authUri: outcome.authUri }, { headers })
}

export default function SsoStart() {
  const { t } = useTranslation()
  const result = useActionData<typeof action>()
  const authUri = result?.authUri
  useEffect(() => {
    if (authUri) window.location.assign(authUri)
  }, [authUri])

  if (!authUri) {
    return (
      <>
        <h1>{t('sso.title')}</h1>
        <p>
          <Link to="/">{t('error.backToSignIn')}</Link>
        </p>
      </>
    )
  }
  return (
    <>
      <h1>{t('sso.redirecting')}</h1>
      <p>
        <a href={authUri}>{t('sso.continueToProvider')}</a>
      </p>
    </>
  )
}
