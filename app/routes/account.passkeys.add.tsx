import { useEffect, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useRouteLoaderData } from 'react-router'
import { Field, FormAlert } from '~/components/forms'
import { routeHeaders } from '~/lib/headers'
import type { TranslationKey } from '~/lib/i18n'
import { FACTOR_NAME_MAX_LENGTH } from '~/lib/limits'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { ceremonyFailure, postPasskey } from '~/lib/passkey-post'
import type { loader as rootLoader } from '~/root'
import { confirmFirst, requireSignedIn } from '~/.server/auth/account'
import { ADD_PATH } from '~/.server/auth/passkeys'
import { deviceOf } from '~/.server/auth/session-store'
import { getLocale, getT } from '~/.server/i18n'
import { getFlags } from '~/.server/ops/flags'
import { errorPage, page, respond } from '~/.server/result'
import { withPageStrings } from '~/lib/i18n-browser'
import type { Route } from './+types/account.passkeys.add'

export const headers = routeHeaders

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'passkeys.add', NOT_INDEXED)

export const clientLoader = (args: Route.ClientLoaderArgs) => withPageStrings(args)

/** After "Confirm it's you"; the name it offers is the browser and system ("Chrome on Linux"), in the page's language. */
export async function loader({ request, context }: Route.LoaderArgs) {
  if (!(await getFlags()).passkeys) throw respond(errorPage(404, 'not-found'))
  const user = await requireSignedIn(request)
  if (!user.recentIdToken) throw confirmFirst(ADD_PATH)
  const { browser, os } = deviceOf(context.userAgent ?? '')
  const t = getT(getLocale(request))
  const name = browser && os ? t('sessions.device', { browser: browser.split(' ')[0], os }) : (browser ?? os ?? '')
  return respond(page({ name: name.slice(0, FACTOR_NAME_MAX_LENGTH) }))
}

export default function AddPasskey({ loaderData: { name } }: Route.ComponentProps) {
  const { t } = useTranslation()
  const csrf = useRouteLoaderData<typeof rootLoader>('root')?.csrf ?? ''
  const [canAdd, setCanAdd] = useState<boolean | null>(null)
  const [busy, setBusy] = useState(false)
  const [message, setMessage] = useState<TranslationKey | null>(null)
  useEffect(() => setCanAdd(typeof window.PublicKeyCredential === 'function'), [])

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const chosen = String(new FormData(event.currentTarget).get('name') ?? '')
    setMessage(null)
    setBusy(true)
    try {
      const webauthn = await import('~/lib/webauthn.client')
      const start = await postPasskey(ADD_PAGE, csrf, { intent: 'start' })
      if (!('options' in start)) return setMessage('error' in start ? start.error : 'error.unexpected')
      const startedAt = Date.now()
      let credential
      try {
        credential = await webauthn.createPasskey(start.options)
      } catch (error) {
        return setMessage(ceremonyFailure(error, startedAt, Number(start.options.timeout ?? 60_000)))
      }
      const finish = await postPasskey(ADD_PAGE, csrf, { intent: 'finish', name: chosen, credential: JSON.stringify(credential) })
      if ('location' in finish) return window.location.assign(finish.location)
      setMessage('error' in finish ? finish.error : 'error.unexpected')
    } finally {
      setBusy(false)
    }
  }

  return (
    <>
      <h1>{t('passkeys.add')}</h1>
      {message ? <FormAlert>{t(message)}</FormAlert> : null}
      <p>{t('passkeys.intro')}</p>
      {canAdd ? (
        <form className="stack" onSubmit={(event) => void add(event)}>
          <Field
            label={t('passkeys.name')}
            name="name"
            defaultValue={name}
            maxLength={FACTOR_NAME_MAX_LENGTH}
            autoComplete="off"
            hint={t('passkeys.nameHint')}
          />
          <button type="submit" className="button-primary" disabled={busy}>
            {busy ? t('passkey.pending') : t('passkeys.add')}
          </button>
        </form>
      ) : (
        <p>{t(canAdd === null ? 'passkeys.needsJs' : 'passkeys.unsupported')}</p>
      )}
      <p>
        <Link to="/account">{t('account.back')}</Link>
      </p>
    </>
  )
}

/** Where the page's script posts its steps (app/routes/account.passkeys.enrol.tsx). */
const ADD_PAGE = '/account/passkeys/enrol'
