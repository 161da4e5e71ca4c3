import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import { AccountChip } from './account-chip'
import { SecureForm } from './secure-form'

/**
 * The signed-in page: who is signed in (the whole address, wrapped when long), the way on to where
 * the visitor was going as the main action when there is one, the account page, and logging out.
 */
export function SignedIn({ email, continueTo }: { email: string; continueTo: { href: string; site: string } | null }) {
  const { t } = useTranslation()
  return (
    <>
      <h1>{t('signIn.signedInTitle')}</h1>
      <AccountChip email={email} />
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
