import { useEffect, useRef, useState, type RefObject } from 'react'
import { useTranslation } from 'react-i18next'
import { useRouteLoaderData } from 'react-router'
import type { TranslationKey } from '~/lib/i18n'
import { ceremonyFailure, postPasskey } from '~/lib/passkey-post'
import type { loader as rootLoader } from '~/root'
import { FormAlert } from './forms'

const PATH = '/passkey'

/**
 * "Sign in with a passkey", under the sign-in form (ADR 067): shown once the page knows the browser
 * has WebAuthn, so never without JavaScript. Where the browser offers passkeys in its autofill, a
 * ceremony waits on the email field (`autocomplete="username webauthn"`) from the start; the button
 * aborts it and opens the browser's dialog. Cancelled, nothing is said: the password form is right there.
 */
export function PasskeySignIn({ form }: { form: RefObject<HTMLFormElement | null> }) {
  const { t } = useTranslation()
  const csrf = useRouteLoaderData<typeof rootLoader>('root')?.csrf ?? ''
  const [supported, setSupported] = useState(false)
  const [busy, setBusy] = useState(false)
  const [message, setMessage] = useState<TranslationKey | null>(null)
  const [round, setRound] = useState(0)
  const autofill = useRef<AbortController | null>(null)

  useEffect(() => setSupported(typeof window.PublicKeyCredential === 'function'), [])

  /** One ceremony; true when the service refused the browser's answer, so that the autofill needs a new challenge. */
  async function ceremony(mediation: 'conditional' | 'optional', signal?: AbortSignal): Promise<boolean> {
    const webauthn = await import('~/lib/webauthn.client')
    if (mediation === 'conditional' && !(await webauthn.autofillAvailable())) return false
    const start = await postPasskey(PATH, csrf, { intent: 'start' })
    if (!('options' in start)) {
      if (mediation === 'optional') setMessage('error' in start ? start.error : 'error.unexpected')
      return false
    }
    const startedAt = Date.now()
    let credential
    try {
      credential = await webauthn.getPasskey(start.options, mediation, signal)
    } catch (error) {
      if (!signal?.aborted) setMessage(ceremonyFailure(error, startedAt, Number(start.options.timeout ?? 60_000)))
      return false
    }
    const posted = form.current ? new FormData(form.current) : new FormData()
    const fields: Record<string, string> = { intent: 'finish', credential: JSON.stringify(credential) }
    const redirect = posted.get('redirect')
    if (typeof redirect === 'string') fields.redirect = redirect
    if (posted.has('remember')) fields.remember = 'on'
    const finish = await postPasskey(PATH, csrf, fields)
    if ('location' in finish) {
      window.location.assign(finish.location)
      return false
    }
    setMessage('error' in finish ? finish.error : 'error.unexpected')
    return true
  }

  useEffect(() => {
    if (!supported || !csrf) return
    const abort = new AbortController()
    autofill.current = abort
    void ceremony('conditional', abort.signal).then((again) => {
      if (again && !abort.signal.aborted) setRound((r) => r + 1)
    })
    return () => abort.abort()
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [supported, csrf, round])

  if (!supported) return null
  async function onClick() {
    autofill.current?.abort()
    setMessage(null)
    setBusy(true)
    await ceremony('optional').finally(() => setBusy(false))
    setRound((r) => r + 1)
  }
  return (
    <div className="passkey-sign-in">
      {message ? <FormAlert>{t(message)}</FormAlert> : null}
      <button type="button" className="button-secondary button-block" onClick={() => void onClick()} disabled={busy}>
        {busy ? t('passkey.pending') : t('passkey.signIn')}
      </button>
    </div>
  )
}
