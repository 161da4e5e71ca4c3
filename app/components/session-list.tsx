import { useTranslation } from 'react-i18next'
import type { Route } from '../routes/+types/account._index'
import { SecureForm } from './secure-form'

type SessionView = Route.ComponentProps['loaderData']['sessions'][number]

/**
 * "Where you're signed in": every live session of the account, this browser first and marked; each
 * other with "End session", whose accessible name says which device. A plain form: works without JavaScript.
 */
export function SessionList({ sessions }: { sessions: SessionView[] }) {
  const { t } = useTranslation()
  const deviceOf = ({ browser, os }: SessionView['device']) =>
    browser && os ? t('sessions.device', { browser, os }) : (browser ?? os ?? t('sessions.unknownDevice'))
  return (
    <section className="account-section" aria-labelledby="sessions">
      <h2 id="sessions">{t('sessions.title')}</h2>
      <ul className="factor-list" aria-labelledby="sessions">
        {sessions.map((s, i) => {
          const device = deviceOf(s.device)
          const method = t(`sessions.${s.method}`) + (s.secondFactor ? ` + ${t(`sessions.${s.secondFactor}`)}` : '')
          return (
            <li key={s.key}>
              <div id={`session-${i}`}>
                <p className="factor-name">
                  {device}
                  {/* A space, not only a margin: text browsers would run the two together. */}
                  {s.current ? <> <strong className="badge">{t('sessions.thisBrowser')}</strong></> : null}
                </p>
                <p className="factor-detail">{t('sessions.signedIn', { when: s.signedIn })}</p>
                <p className="factor-detail">{t('sessions.how', { method })}</p>
                {s.current ? null : <p className="factor-detail">{t('sessions.lastActive', { when: s.lastActive })}</p>}
                <p className="factor-detail" data-personal>
                  {t('sessions.from', { ip: s.ip })}
                </p>
              </div>
              {s.current ? null : (
                <SecureForm>
                  <input type="hidden" name="session" value={s.key} />
                  <button
                    type="submit"
                    name="intent"
                    value="end-session"
                    className="button-secondary"
                    aria-label={t('sessions.endNamed', { device, when: s.signedIn })}
                  >
                    {t('sessions.end')}
                  </button>
                </SecureForm>
              )}
            </li>
          )
        })}
      </ul>
    </section>
  )
}
