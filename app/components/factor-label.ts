import { useTranslation } from 'react-i18next'
import type { SecondFactor } from '~/.server/identity'

/** A phone as the sign-in step names it: its last four digits ('ending in 0100'), the service masks the rest. */
export function phoneEnding(phone: string): string {
  return phone.replace(/\D/g, '').slice(-4) || phone
}

/**
 * How a second factor is named wherever it is shown (the chooser, the revert link's page): its
 * display name when it has one, and the phone's last digits or 'Authenticator app'.
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
