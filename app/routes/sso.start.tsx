import { Link } from 'react-router'
import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { routeHeaders } from '~/lib/headers'
import { pageTitle } from '~/lib/meta'
import { SsoStartFormSchema } from '~/lib/schemas'
import { redirectOf } from '~/.server/policy/redirect'
import { errorPage, guardForm, parseForm, respond } from '~/.server/result'
import { accountPath, requireSignedIn } from '~/.server/auth/account'
import { confirmThenOf } from '~/.server/auth/recent-login'
import { startSso } from '~/.server/auth/sso'
import type { Route } from './+types/sso.start'

export const headers = routeHeaders

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'meta.sso')

/**
 * The 'Use single sign-on' button of the sign-in form posts here (CSRF-checked), with "Keep me
 * signed in"; so does "Confirm it's you" for an account of the provider (`intent=confirm`, its
 * `next` and `then`: ADR 043). A form post may not be redirected to another origin (CSP
 * form-action 'self'), so the answer is a page that moves on by itself: a Refresh header without
 * JavaScript, location.assign with it, and a link for both.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const { form, redirect } = await guardForm(request, context)
  const parsed = parseForm(SsoStartFormSchema, form, {})
  if (!parsed.ok) return respond(errorPage(400, 'bad-form'))
  const { intent, next, then, authDomain, remember } = parsed.data
  const uid = intent === 'confirm' ? (await requireSignedIn(request)).uid : null
  const confirm = uid === null ? null : { uid, next: accountPath(next || null), then: confirmThenOf(then || null) }
  return respond(await startSso(request, { redirect: redirectOf(redirect), authDomain: authDomain || null, remember, confirm }, context))
}

export default function SsoStart({ actionData }: Route.ComponentProps) {
  const { t } = useTranslation()
  const authUri = actionData?.authUri
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
