import {
  data,
  Link,
  redirect,
  useActionData,
  useLoaderData,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from 'react-router'
import { useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { renderSVG } from 'uqr'
import { Field, FormAlert, SubmitButton, useAfterSubmission } from '~/components/forms'
import { SecureForm } from '~/components/secure-form'
import { brandName } from '~/lib/brand'
import { NO_STORE, routeHeaders } from '~/lib/headers'
import type { TranslationKey } from '~/lib/i18n'
import { FACTOR_NAME_MAX_LENGTH } from '~/lib/limits'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { formText } from '~/lib/schemas'
import { confirmFirst, requireSignedIn } from '~/.server/auth/account'
import { readRecentLogin } from '~/.server/auth/recent-login'
import { addTotp, clearEnrolment, otpauthUri, totpEnrolment } from '~/.server/auth/second-factors'
import { readAccount } from '~/.server/auth/session'
import { getLocale } from '~/.server/i18n'
import { guardForm } from '~/.server/policy/form-guard'

export const headers = routeHeaders

export const meta: MetaFunction = ({ matches }) => pageTitle(matches, 'secondFactors.addTotp', NOT_INDEXED)

const PATH = '/account/second-factor/totp'

/**
 * Needs a verified address and "Confirm it's you" (ADR 036). The secret is the one this browser's
 * enrolment holds (ADR 041), else a new one: a refresh or a wrong code shows the same QR code.
 */
export async function loader({ request, context, url }: LoaderFunctionArgs) {
  const user = await requireSignedIn(request)
  const account = await readAccount(user.uid).catch(() => {
    throw data({ reason: 'identity-unavailable' }, { status: 503, headers: NO_STORE })
  })
  if (!account.emailVerified || !account.email) throw redirect('/account', { headers: NO_STORE })
  const idToken = readRecentLogin(request, user)
  if (!idToken) throw confirmFirst(PATH)
  const outcome = await totpEnrolment(request, user, idToken, context)
  if (outcome.status === 'confirm') throw confirmFirst(PATH)
  if (outcome.status === 'error') {
    return data(
      { setup: null, failure: outcome.message, expired: false },
      { status: outcome.httpStatus, headers: NO_STORE },
    )
  }
  const { enrolment } = outcome
  const uri = otpauthUri(enrolment, brandName(getLocale(request)), account.email)
  // Dark modules on a white quiet zone of 4 modules, whatever the page's colour scheme: what cameras read.
  const svg = renderSVG(uri, { border: 4, pixelSize: 4, whiteColor: '#fff', blackColor: '#000' })
  const headers = new Headers(NO_STORE)
  for (const cookie of outcome.setCookies) headers.append('Set-Cookie', cookie)
  return data(
    {
      setup: { svg, secret: enrolment.secret.match(/.{1,4}/g)?.join(' ') ?? '', digits: enrolment.digits },
      failure: null,
      expired: url.searchParams.has('expired'),
    },
    { headers },
  )
}

type ActionData = { name: string; codeError?: TranslationKey; formError?: TranslationKey }

export async function action({ request, context }: ActionFunctionArgs) {
  const { form } = await guardForm(request, context)
  const user = await requireSignedIn(request)
  const idToken = readRecentLogin(request, user)
  if (!idToken) return confirmFirst(PATH)
  const name = formText(form, 'name').slice(0, FACTOR_NAME_MAX_LENGTH)
  const outcome = await addTotp(request, user, idToken, { code: formText(form, 'code'), name }, context)
  switch (outcome.status) {
    case 'confirm':
      return confirmFirst(PATH)
    case 'expired':
      // A new enrolment, hence a new secret: the page says why the QR code changed.
      return redirect(`${PATH}?expired`, {
        status: 303,
        headers: [...Object.entries(NO_STORE), ['Set-Cookie', clearEnrolment()]],
      })
    case 'done': {
      const headers = new Headers(NO_STORE)
      for (const cookie of outcome.setCookies) headers.append('Set-Cookie', cookie)
      return redirect('/account?done=totp-added', { status: 303, headers })
    }
    case 'error': {
      const field = outcome.message === 'mfa.wrongCode' || outcome.message === 'mfa.codeFormat'
      return data<ActionData>(field ? { name, codeError: outcome.message } : { name, formError: outcome.message }, {
        status: outcome.httpStatus,
        headers: NO_STORE,
      })
    }
  }
}

export default function AddAuthenticatorApp() {
  const { t } = useTranslation()
  const { setup, failure, expired } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>() as ActionData | undefined
  const formRef = useRef<HTMLFormElement>(null)
  useAfterSubmission(formRef, result)
  return (
    <>
      <h1>{t('secondFactors.addTotp')}</h1>
      {failure ? <FormAlert>{t(failure)}</FormAlert> : null}
      {setup ? (
        <>
          {expired ? <FormAlert tone="info">{t('secondFactors.expired')}</FormAlert> : null}
          {result?.formError ? <FormAlert>{t(result.formError)}</FormAlert> : null}
          <p className="subtitle">{t('secondFactors.totpIntro')}</p>
          {/* Drawn on the server: shown without JavaScript, named for screen readers. */}
          <div
            className="qr-code"
            role="img"
            aria-label={t('secondFactors.qrLabel')}
            dangerouslySetInnerHTML={{ __html: setup.svg }}
          />
          <dl className="totp-secret">
            <dt>{t('secondFactors.secret')}</dt>
            <dd>
              <code>{setup.secret}</code>
            </dd>
          </dl>
          <SecureForm ref={formRef} className="stack" noValidate>
            <Field
              label={t('secondFactors.code')}
              name="code"
              type="text"
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              maxLength={setup.digits}
              error={result?.codeError ? t(result.codeError) : null}
            />
            <Field
              label={t('secondFactors.name')}
              name="name"
              type="text"
              autoComplete="off"
              maxLength={FACTOR_NAME_MAX_LENGTH}
              defaultValue={result?.name ?? ''}
              hint={t('secondFactors.nameHint')}
            />
            <SubmitButton pendingLabel={t('mfa.pending')}>{t('secondFactors.add')}</SubmitButton>
          </SecureForm>
        </>
      ) : null}
      <p>
        <Link to="/account">{t('account.back')}</Link>
      </p>
    </>
  )
}
