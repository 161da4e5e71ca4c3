import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import { FormAlert } from './forms'

/**
 * The one page of an emailed link that no longer works (/new-password, /action): a heading, the
 * sentence the product has always used, one action (a new link) and the way back to sign-in, said once each.
 */
export function ExpiredLink({ again, signIn = '/' }: { again: string; signIn?: string }) {
  const { t } = useTranslation()
  return (
    <>
      <h1>{t('newPassword.invalidTitle')}</h1>
      <FormAlert>{t('error.invalidLink')}</FormAlert>
      <div className="actions">
        {/* The address the link was for, when known: kept out of Session Replay (ADR 030). */}
        <Link to={again} className="button-primary button-link" data-personal>
          {t('newPassword.requestNew')}
        </Link>
        <Link to={signIn}>{t('error.backToSignIn')}</Link>
      </div>
    </>
  )
}
