import { useTranslation } from 'react-i18next'
import { evaluatePassword } from '~/lib/password-policy'

/**
 * The rules, listed before anything is typed; with JavaScript they tick as the person types.
 * The server decides all the same.
 */
export function PasswordRules({ id, password, minLength }: { id: string; password: string; minLength: number }) {
  const { t } = useTranslation()
  const state = evaluatePassword(password, { minLength })
  const touched = password.length > 0
  const rule = (met: boolean, label: string) => (
    <li data-met={touched ? met : undefined}>
      {label}
      {touched ? <span className="visually-hidden">{` (${met ? t('newPassword.ruleMet') : t('newPassword.ruleNotMet')})`}</span> : null}
    </li>
  )
  return (
    <div id={id} className="password-rules">
      <p>{t('newPassword.rulesTitle')}</p>
      <ul>
        {rule(state.length, t('newPassword.ruleLength', { count: minLength }))}
        <li data-met={touched ? state.classes : undefined}>
          {t('newPassword.ruleClasses')}
          <ul>
            {rule(state.lower, t('newPassword.ruleLower'))}
            {rule(state.upper, t('newPassword.ruleUpper'))}
            {rule(state.digit, t('newPassword.ruleDigit'))}
            {rule(state.special, t('newPassword.ruleSpecial'))}
          </ul>
        </li>
      </ul>
    </div>
  )
}
