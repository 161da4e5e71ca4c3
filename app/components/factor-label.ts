import { useTranslation } from 'react-i18next'
import type { SecondFactor } from '~/.server/identity'

/**
 * How a second factor is named wherever it is shown (the chooser, the revert link's page): its
 * display name when it has one, and the masked phone or 'Authenticator app'.
 */
export function useFactorLabel(): (factor: SecondFactor) => string {
  const { t } = useTranslation()
  return (factor) => {
    if (factor.kind === 'phone') {
      return factor.displayName
        ? t('mfa.factorSmsNamed', { name: factor.displayName, phone: factor.phone })
        : t('mfa.factorSms', { phone: factor.phone })
    }
    return factor.displayName ? t('mfa.factorTotpNamed', { name: factor.displayName }) : t('mfa.factorTotp')
  }
}
