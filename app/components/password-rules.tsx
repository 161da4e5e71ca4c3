import { useTranslation } from 'react-i18next'
import { evaluatePassword, type PasswordRuleState } from '~/lib/password-policy'

/**
 * The rules as a checklist. Before anything is typed each is an empty circle; with JavaScript they
 * tick as the person types, and say so to screen readers ('met' / 'not met'). `judged` (the
 * server's check of a rejected password, given while the field is empty, as without JavaScript,
 * or still holds what was sent) says which rules that password met and missed: the server knows
 * more common words than the page, and marks each missed rule as such. The four character types
 * sit under their rule.
 */
export function PasswordRules({
  id,
  password,
  minLength,
  email,
  judged = null,
}: {
  id: string
  password: string
  minLength: number
  email: string
  judged?: PasswordRuleState | null
}) {
  const { t } = useTranslation()
  const state = judged ?? evaluatePassword(password, { minLength, email })
  const touched = password.length > 0 || judged !== null
  const status = (met: boolean) =>
    touched ? (
      <span className="visually-hidden">{` (${met ? t('newPassword.ruleMet') : t('newPassword.ruleNotMet')})`}</span>
    ) : null
  const rule = (met: boolean, label: string) => (
    <li data-met={touched ? met : undefined}>
      {label}
      {status(met)}
    </li>
  )
  return (
    <div id={id} className="password-rules" data-judged={judged !== null || undefined}>
      <p>{t('newPassword.rulesTitle')}</p>
      <ul className="checklist">
        {rule(state.length, t('newPassword.ruleLength', { count: minLength }))}
        <li data-met={touched ? state.classes : undefined}>
          {t('newPassword.ruleClasses')}
          {status(state.classes)}
          <ul className="checklist checklist-types">
            {rule(state.lower, t('newPassword.ruleLower'))}
            {rule(state.upper, t('newPassword.ruleUpper'))}
            {rule(state.digit, t('newPassword.ruleDigit'))}
            {rule(state.special, t('newPassword.ruleSpecial'))}
          </ul>
        </li>
        {rule(state.unguessable, t('newPassword.ruleGuess'))}
      </ul>
    </div>
  )
}
