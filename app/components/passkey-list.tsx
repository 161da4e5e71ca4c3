import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Form, Link } from 'react-router'

/**
 * The account page's "Passkeys" section (ADR 067): each passkey by name with "Remove" (a GET to its
 * confirmation page, which works without JavaScript), and "Add a passkey" where the browser can make
 * one; without JavaScript the section says that adding one needs it.
 */
export function PasskeyList({ passkeys }: { passkeys: { ref: string; name: string }[] }) {
  const { t } = useTranslation()
  const [canAdd, setCanAdd] = useState<boolean | null>(null)
  useEffect(() => setCanAdd(typeof window.PublicKeyCredential === 'function'), [])
  return (
    <section className="factors" aria-labelledby="passkeys">
      <h3 id="passkeys">{t('passkeys.title')}</h3>
      {passkeys.length ? (
        <ul className="factor-list" aria-labelledby="passkeys">
          {passkeys.map((p, i) => (
            <li key={p.ref}>
              <div>
                {/* A name the visitor chose: kept out of Session Replay (ADR 030). */}
                <p id={`passkey-${i}`} className="factor-name" data-personal>
                  {p.name}
                </p>
              </div>
              <Form action="/account/passkeys/remove">
                <input type="hidden" name="passkey" value={p.ref} />
                <button type="submit" className="button-secondary" aria-describedby={`passkey-${i}`}>
                  {t('passkeys.remove')}
                </button>
              </Form>
            </li>
          ))}
        </ul>
      ) : (
        <p>{t('passkeys.none')}</p>
      )}
      {canAdd ? (
        <ul className="factor-add">
          <li>
            <Link to="/account/passkeys/add">{t('passkeys.add')}</Link>
          </li>
        </ul>
      ) : (
        <p>{t(canAdd === null ? 'passkeys.needsJs' : 'passkeys.unsupported')}</p>
      )}
    </section>
  )
}
