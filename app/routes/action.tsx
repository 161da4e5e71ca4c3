import { data, redirect, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { FormAlert } from '~/components/forms'
import { routeHeaders } from '~/lib/headers'
import { pageTitle } from '~/lib/meta'

export const headers = routeHeaders

export const meta: MetaFunction = ({ matches }) => pageTitle(matches, 'meta.action')

/** The modes the identity service puts in emailed links (seed section 5). */
const MODES = ['resetPassword', 'recoverEmail', 'verifyEmail', 'signIn', 'verifyAndChangeEmail', 'revertSecondFactorAddition']

/**
 * The guard for emailed links (seed section 2): a reset link goes on to /new-password with every
 * other parameter, without `mode` and `apiKey`. Anything else is an invalid link for now.
 */
export function loader({ request }: LoaderFunctionArgs) {
  const params = new URL(request.url).searchParams
  const mode = params.get('mode')
  const valid = mode !== null && MODES.includes(mode) && Boolean(params.get('oobCode'))
  if (valid && mode === 'resetPassword') {
    params.delete('mode')
    params.delete('apiKey')
    throw redirect(`/new-password?${params}`, { headers: { 'Cache-Control': 'no-store' } })
  }
  return data(null, { status: valid ? 200 : 400, headers: { 'Cache-Control': 'no-store' } })
}

export default function EmailAction() {
  const { t } = useTranslation()
  return (
    <>
      <h1>{t('meta.action')}</h1>
      <FormAlert>{t('error.invalidLink')}</FormAlert>
      <p className="links">
        <Link to="/forgot-password">{t('newPassword.requestNew')}</Link>
        <Link to="/">{t('error.backToSignIn')}</Link>
      </p>
    </>
  )
}
