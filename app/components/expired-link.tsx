import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import type { TranslationKey } from '~/lib/i18n'
import { FormAlert } from './forms'

/** The way back into a dead link's own flow: where, the button's words, and a line saying why there. */
export interface Recovery {
  to: string
  label: TranslationKey
  hint?: TranslationKey
}

/**
 * The one page of an emailed link that no longer works (/new-password, /action): a heading, the
 * sentence the product has always used, the link's own way to start again (a new reset link, a
 * verification from the account page…) when there is one, and the way back to sign-in, said once each.
 */
export function ExpiredLink({ again, signIn = '/' }: { again: Recovery | null; signIn?: string }) {
  const { t } = useTranslation()
  return (
    <>
      <h1>{t('newPassword.invalidTitle')}</h1>
      <FormAlert>{t('error.invalidLink')}</FormAlert>
      {again?.hint ? <p>{t(again.hint)}</p> : null}
      <div className="actions">
        {/* The address the link was for, when known: kept out of Session Replay (ADR 030). */}
        {again ? (
          <Link to={again.to} className="button-primary button-link" data-personal>
            {t(again.label)}
          </Link>
        ) : null}
        <Link to={signIn}>{t('error.backToSignIn')}</Link>
      </div>
    </>
  )
}
