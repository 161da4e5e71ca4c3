import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'

const HELP = {
  'error.invalidRedirect': 'error.invalidRedirectHelp',
  'error.missingRedirect': 'error.missingRedirectHelp',
} as const

/**
 * Under 'Invalid redirect URL' or 'Missing redirect URL' (the specification's words, kept): what
 * happened in plain words, and the way on, the sign-in page without the refused address.
 */
export function RedirectHelp({ error }: { error: string | null | undefined }) {
  const { t } = useTranslation()
  if (error !== 'error.invalidRedirect' && error !== 'error.missingRedirect') return null
  return (
    <>
      <p className="alert-more">{t(HELP[error])}</p>
      <p>
        <Link to="/">{t('error.redirectWayOut')}</Link>
      </p>
    </>
  )
}
