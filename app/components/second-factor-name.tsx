import { useTranslation } from 'react-i18next'
import type { SecondFactor } from '~/.server/identity'

/** A phone as the sign-in step names it: its last four digits ('ending in 0100'), the service masks the rest. */
export function phoneEnding(phone: string): string {
  return phone.replace(/\D/g, '').slice(-4) || phone
}

/**
 * How a second factor is named, wherever it is shown: its display name when it has one, and what it
 * is (the phone's last digits, "Authenticator app"). Two forms of the one name: `useFactorLabel` in a
 * sentence or a choice (the chooser at sign-in, the revert link's page), `SecondFactorName` on the
 * account pages.
 */
export function useFactorLabel(): (factor: SecondFactor) => string {
  const { t } = useTranslation()
  return (factor) => {
    if (factor.kind === 'phone') {
      const phone = t('mfa.phoneEnding', { digits: phoneEnding(factor.phone) })
      return factor.displayName ? t('mfa.factorSmsNamed', { name: factor.displayName, phone }) : t('mfa.factorSms', { phone })
    }
    return factor.displayName ? t('mfa.factorTotpNamed', { name: factor.displayName }) : t('mfa.factorTotp')
  }
}

/** On the account pages: the display name, or what it is; with a display name, what it is comes under it, then `added`. */
export function SecondFactorName({ factor, id, added }: { factor: SecondFactor; id?: string; added?: string | null }) {
  const { t } = useTranslation()
  const kind = factor.kind === 'phone' ? factor.phone : t('mfa.factorTotp')
  return (
    <div>
      <p className="factor-name" id={id} data-personal={factor.kind === 'phone' ? true : undefined}>
        {factor.displayName ?? kind}
      </p>
      {factor.displayName ? <p className="factor-detail">{kind}</p> : null}
      {added ? <p className="factor-detail">{t('secondFactors.added', { date: added })}</p> : null}
    </div>
  )
}
