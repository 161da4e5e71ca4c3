import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import { Address } from './address'
import { SecureForm } from './secure-form'

/**
 * The signed-in page: who is signed in (the whole address, wrapped when long), the way on to where
 * the visitor was going as the main action when there is one, the account page, and logging out.
 */
export function SignedIn({ email, continueTo }: { email: string; continueTo: { href: string; site: string } | null }) {
  const { t } = useTranslation()
  const initial = [...email][0]?.toUpperCase() ?? '?'
  return (
    <>
      <h1>{t('signIn.signedInTitle')}</h1>
      {/* data-personal: Session Replay records the account's address as an empty box (ADR 030). */}
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
      <div className="actions">
        {continueTo ? (
          <a href={continueTo.href} className="button-primary button-link">
            {t('signIn.continueTo', { site: continueTo.site })}
          </a>
        ) : null}
        <Link to="/account" className="button-secondary button-link">
          {t('signIn.accountLink')}
        </Link>
        <SecureForm action="/logout" className="stack">
          <button type="submit" className="button-secondary button-block">
            {t('signIn.logout')}
          </button>
        </SecureForm>
      </div>
    </>
  )
}
