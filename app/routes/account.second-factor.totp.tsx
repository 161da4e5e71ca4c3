import { Link } from 'react-router'
import { useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { Field, FormAlert, SubmitButton, useAfterSubmission } from '~/components/forms'
import { ErrorAlert } from '~/components/local-time'
import { SecureForm } from '~/components/secure-form'
import { brandName } from '~/lib/brand'
import { routeHeaders } from '~/lib/headers'
import { FACTOR_NAME_MAX_LENGTH, type FieldErrors } from '~/lib/limits'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { TotpFormSchema } from '~/lib/schemas'
import { requireSignedIn } from '~/.server/auth/account'
import { addTotp, totpSetup, type TotpRefusal } from '~/.server/auth/second-factors'
import { getLocale } from '~/.server/i18n'
import { type Answers, guardForm, parseForm, respond } from '~/.server/result'
import { withPageStrings } from '~/lib/i18n-browser'
import type { Route } from './+types/account.second-factor.totp'

export const headers = routeHeaders

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'secondFactors.addTotp', NOT_INDEXED)

export const clientLoader = (args: Route.ClientLoaderArgs) => withPageStrings(args)

/** Needs a verified address and "Confirm it's you" (ADR 036); shows this browser's enrolment (ADR 041). */
export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireSignedIn(request)
  const input = { expired: url.searchParams.has('expired'), issuer: brandName(getLocale(request)) }
  return respond(await totpSetup(request, user, input, context))
}

/** What the page reads from any answer: the form's refusal, or the code's. */
type ActionData = Answers<TotpRefusal | { fieldErrors: FieldErrors }>

export async function action({ request, context }: Route.ActionArgs) {
  const { form } = await guardForm(request, context)
  const user = await requireSignedIn(request)
  const parsed = parseForm(TotpFormSchema, form, {})
  if (!parsed.ok) return respond<ActionData>(parsed.result)
  return respond<ActionData>(await addTotp(request, user, parsed.data, context))
}

export default function AddAuthenticatorApp({ loaderData, actionData: result }: Route.ComponentProps) {
  const { t } = useTranslation()
  const { setup, failure, expired, retryAt } = loaderData
  const formRef = useRef<HTMLFormElement>(null)
  useAfterSubmission(formRef, result)
  return (
    <>
      <h1>{t('secondFactors.addTotp')}</h1>
      <ErrorAlert message={failure} at={retryAt} />
      {setup ? (
        <>
          {expired ? <FormAlert tone="info">{t('secondFactors.expired')}</FormAlert> : null}
          <ErrorAlert message={result?.formError} at={result?.retryAt} />
          <p className="subtitle">{t('secondFactors.totpIntro')}</p>
          {/* Drawn on the server: shown without JavaScript, named for screen readers. data-secret: never in a replay. */}
          <div
            data-secret
            className="qr-code"
            role="img"
            aria-label={t('secondFactors.qrLabel')}
            dangerouslySetInnerHTML={{ __html: setup.svg }}
          />
          <dl className="totp-secret" data-secret>
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
