import { useTranslation } from 'react-i18next'
import { Form, Link } from 'react-router'
import type { SecondFactor } from '~/.server/identity'
import { SecondFactorName } from './second-factor-name'

/** The account page's second factors: on or off at a glance, each with "Remove", and the ways to add one. */
export function SecondFactorList({
  factors: secondFactors,
  verified,
  offered,
}: {
  factors: (SecondFactor & { added: string | null })[]
  verified: boolean
  /** The kinds the identity project enables (ADR 072). */
  offered: readonly string[]
}) {
  const { t } = useTranslation()
  return (
    <div className="factors">
      <div className="factors-head">
        <h3 id="second-factors">{t('account.secondFactors')}</h3>
        <span className={secondFactors.length ? 'badge badge-on' : 'badge badge-off'}>
          {secondFactors.length ? t('accountPage.twoStepOn') : t('accountPage.twoStepOff')}
        </span>
      </div>
      {secondFactors.length ? (
        <ul className="factor-list" aria-labelledby="second-factors">
          {secondFactors.map((f, i) => (
            <li key={f.id}>
              <SecondFactorName factor={f} id={`factor-${i}`} added={f.added} />
              {/* A GET to the confirmation page, which names the factor: the removal itself is its POST. */}
              <Form action="/account/second-factor/remove">
                <input type="hidden" name="factor" value={f.id} />
                <button type="submit" className="button-secondary" aria-describedby={`factor-${i}`}>
                  {t('secondFactors.remove')}
                </button>
              </Form>
            </li>
          ))}
        </ul>
      ) : (
        <p>{t('account.noSecondFactor')}</p>
      )}
      {offered.length === 0 ? null : verified ? (
        // Links, not buttons: their labels are too long for one line of a button at 320 px (ADR 035).
        <ul className="factor-add">
          {offered.includes('totp') ? (
            <li>
              <Link to="/account/second-factor/totp">{t('secondFactors.addTotp')}</Link>
            </li>
          ) : null}
          {offered.includes('phone') ? (
            <li>
              <Link to="/account/second-factor/phone">{t('secondFactors.addPhone')}</Link>
            </li>
          ) : null}
        </ul>
      ) : (
        <p>{t('secondFactors.needsVerified')}</p>
      )}
    </div>
  )
}
