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
import { useTranslation } from 'react-i18next'
import { withAddresses } from '~/components/address'
import { ExpiredLink } from '~/components/expired-link'
import { FormAlert } from '~/components/forms'
import { NewPasswordForm } from '~/components/new-password-form'
import { NO_STORE, routeHeaders } from '~/lib/headers'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { formText } from '~/lib/form-text'
import { LINK_QUERY_MAX_LENGTH } from '~/.server/auth/email-actions'
import { completePasswordReset, continueParams, inspectResetCode } from '~/.server/auth/new-password'
import {
  clearResetCodeCookie,
  clearResetDone,
  keepResetCode,
  markResetDone,
  readResetCode,
  resetDone,
} from '~/.server/auth/password-reset'
import { guardForm } from '~/.server/policy/form-guard'

export const headers = routeHeaders

/** The title follows the page's state: the form, the password changed, or a link that no longer works. */
export const meta: MetaFunction<typeof loader> = ({ matches, loaderData }) =>
  pageTitle(matches, loaderData ? STATE_TITLES[loaderData.state] : 'meta.newPassword', NOT_INDEXED)

const STATE_TITLES = {
  form: 'meta.newPassword',
  done: 'newPassword.doneTitle',
  invalid: 'newPassword.invalidTitle',
} as const

/** `/new-password`, with only the `redirect` a sign-in will need: never the link's `lang` or `continueUrl`. */
function cleanAddress(search: URLSearchParams): string {
  const signIn = continueParams(search)
  return `/new-password${signIn ? `?${signIn}` : ''}`
}

/**
 * GET checks the code without spending it (mail scanners open links). On the first visit the
 * code moves from the address bar into a cookie and the page reloads on a clean URL.
 */
export async function loader({ request, url }: LoaderFunctionArgs) {
  const fromLink = url.searchParams.get('oobCode')
  // A link's other parameters go into the Location header below: a very long query is no link of ours.
  const tooLong = fromLink !== null && url.search.length > LINK_QUERY_MAX_LENGTH
  if (fromLink && !tooLong) {
    const headers = new Headers(NO_STORE)
    for (const cookie of keepResetCode(request, fromLink)) headers.append('Set-Cookie', cookie)
    headers.append('Set-Cookie', clearResetDone())
    throw redirect(cleanAddress(url.searchParams), { headers })
  }
  const signIn = continueParams(url.searchParams)
  if (!tooLong && resetDone(request)) {
    return data({ state: 'done', email: null, minLength: 0, signIn } as const, { headers: NO_STORE })
  }
  const info = await inspectResetCode(tooLong ? null : readResetCode(request))
  if ('unavailable' in info) throw data({ reason: 'identity-unavailable' }, { status: info.unavailable })
  if (!info.valid) {
    return data({ state: 'invalid', email: info.email, minLength: info.minLength, signIn } as const, {
      status: 400,
      headers: { ...NO_STORE, 'Set-Cookie': clearResetCodeCookie() },
    })
  }
  return data({ state: 'form', email: info.email, minLength: info.minLength, signIn } as const, { headers: NO_STORE })
}

export async function action({ request, url, context }: ActionFunctionArgs) {
  const { form } = await guardForm(request, context)
  const outcome = await completePasswordReset(
    {
      oobCode: readResetCode(request),
      password: formText(form, 'password'),
      confirmation: formText(form, 'confirmation'),
    },
    context,
  )
  if (outcome.status === 'done') {
    const headers = new Headers({ ...NO_STORE, 'Set-Cookie': clearResetCodeCookie() })
    for (const cookie of markResetDone(request)) headers.append('Set-Cookie', cookie)
    return redirect(cleanAddress(url.searchParams), { status: 303, headers })
  }
  const headers = outcome.status === 'invalid-link' ? { ...NO_STORE, 'Set-Cookie': clearResetCodeCookie() } : NO_STORE
  return data(outcome, { status: outcome.httpStatus, headers })
}

export default function NewPassword() {
  const { t } = useTranslation()
  const loaderData = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const signInLink = `/${loaderData.signIn ? `?${loaderData.signIn}` : ''}`

  // This submission's own answer first: a link spent meanwhile (in another tab, which then set the done flag).
  if (loaderData.state === 'invalid' || result?.status === 'invalid-link') {
    const again = loaderData.email
      ? `/forgot-password?${new URLSearchParams({ email: loaderData.email })}`
      : '/forgot-password'
    return <ExpiredLink again={again} signIn={signInLink} />
  }

  if (loaderData.state === 'done') {
    return (
      <>
        <h1>{t('newPassword.doneTitle')}</h1>
        <FormAlert tone="success">{t('newPassword.success')}</FormAlert>
        <Link to={signInLink} className="button-primary button-link">
          {t('newPassword.backToSignIn')}
        </Link>
      </>
    )
  }
  const formError = result?.status === 'error' ? result.message : null
  return (
    <>
      <h1>{t('newPassword.title')}</h1>
      <Subtitle email={loaderData.email} />
      {formError ? <FormAlert>{t(formError)}</FormAlert> : null}
      <NewPasswordForm
        email={loaderData.email}
        minLength={loaderData.minLength}
        result={result}
        rejection={result?.status === 'invalid' ? result : null}
      />
    </>
  )
}

/** The subtitle, its {{user}} the account's address, shown whole (wrapped when long). */
function Subtitle({ email }: { email: string }) {
  const { t } = useTranslation()
  return (
    <p className="subtitle" data-personal>
      {withAddresses(t('newPassword.subtitle', { user: email }), [email])}
    </p>
  )
}
