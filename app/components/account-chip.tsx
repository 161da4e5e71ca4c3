import { useTranslation } from 'react-i18next'
import { Address } from './address'

/** Who is signed in: an initial and the whole address (wrapped when long), as the signed-in page and "Confirm it's you" show it. */
export function AccountChip({ email }: { email: string }) {
  const { t } = useTranslation()
  const initial = [...email][0]?.toUpperCase() ?? '?'
  return (
    // data-personal: Session Replay records the account's address as an empty box (ADR 030).
    <div className="account" data-personal>
      <span className="account-avatar" aria-hidden="true">
        {initial}
      </span>
      <p className="account-text">
        <span className="account-label">{t('signIn.accountLabel')}</span>{' '}
        <span className="account-email">
          <Address email={email} />
        </span>
      </p>
    </div>
  )
}
