import { useTranslation } from 'react-i18next'
import type { SecondFactor } from '~/.server/identity'

/**
 * A second factor as the account pages name it: its display name, or what it is (the masked phone
 * number, "Authenticator app"); with a display name, what it is comes under it, then `added`.
 */
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
