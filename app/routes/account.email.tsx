import { Link } from 'react-router'
import { lazy, Suspense, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { Field, FormAlert, SubmitButton, useAfterSubmission } from '~/components/forms'
import { ErrorAlert } from '~/components/local-time'
import { SecureForm } from '~/components/secure-form'
import { routeHeaders } from '~/lib/headers'
import type { TranslationKey } from '~/lib/i18n'
import { EMAIL_MAX_LENGTH, type FieldErrors } from '~/lib/limits'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { EmailChangeFormSchema, formText } from '~/lib/schemas'
import { ACCOUNT_PATHS, requestEmailChange, requireConfirmed } from '~/.server/auth/account'
import { resendable, sentView } from '~/.server/auth/email-sent'
import { guardForm, keptEmail, page, parseForm, redirectTo, respond } from '~/.server/result'
import { withPageStrings, withSentStrings } from '~/lib/i18n-browser'
import type { Route } from './+types/account.email'

export const headers = routeHeaders

/** A browser loads it only once sent: the page's first visit is at its JavaScript budget (ADR 083). */
const CheckEmailAgain = import.meta.env.SSR
  ? (await import('~/components/check-email-again')).default
  : lazy(() => withSentStrings(import('~/components/check-email-again')))

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'meta.accountEmail', NOT_INDEXED)

const PATH = ACCOUNT_PATHS.email

export const clientLoader = (args: Route.ClientLoaderArgs) => withPageStrings(args)

/** Sending the link needs the fresh ID token of "Confirm it's you" (ADR 036). */
export async function loader({ request }: Route.LoaderArgs) {
  await requireConfirmed(request, PATH)
  const sent = new URL(request.url).searchParams.get('sent') === '1'
  return respond(page({ sent: sent ? sentView(request, 'email-change') : null }))
}

export async function action({ request, context }: Route.ActionArgs) {
  const { form } = await guardForm(request, context)
  const confirmed = await requireConfirmed(request, PATH)
  // "Send the link again": the new address this browser asked for, after the wait, then the first send's limits.
  if (formText(form, 'intent') === 'resend') {
    const again = resendable(request, 'email-change')
    if (again === null) return respond(redirectTo(PATH))
    if ('retryAt' in again) return respond<ActionData>(page({ formError: 'error.tooManyRequestsAt', ...again }, { status: 429 }))
    form.set('email', again.email)
  }
  const parsed = parseForm(EmailChangeFormSchema, form, { email: keptEmail(form) })
  if (!parsed.ok) return respond<ActionData>(parsed.result)
  return respond<ActionData>(await requestEmailChange(request, confirmed, parsed.data.email, context))
}

/** What the page reads from any answer: the form again with what went wrong (once sent, the page is `?sent=1`). */
type ActionData = { email?: string; fieldErrors?: FieldErrors; formError?: TranslationKey; retryAt?: number }

export default function ChangeEmail({ loaderData: { sent }, actionData: result }: Route.ComponentProps) {
  const { t } = useTranslation()
  const formRef = useRef<HTMLFormElement>(null)
  useAfterSubmission(formRef, result)
  return (
    <>
      <h1>{t('changeEmail.title')}</h1>
      {sent ? (
        <Suspense>
          {/* "Send the link again" refused by the service (within the wait, the limits' message is CheckEmail's). */}
          {result?.formError && !result.retryAt ? <FormAlert>{t(result.formError)}</FormAlert> : null}
          <CheckEmailAgain
            message={t('changeEmail.sent')}
            sent={sent}
            retryAt={result?.retryAt}
            label="checkEmail.resendLink"
          />
        </Suspense>
      ) : (
        <>
          <p className="subtitle">{t('changeEmail.intro')}</p>
          <ErrorAlert message={result?.formError} at={result?.retryAt} />
          <SecureForm ref={formRef} className="stack" noValidate>
            <Field
              label={t('changeEmail.newEmail')}
              name="email"
              type="email"
              autoComplete="email"
              required
              maxLength={EMAIL_MAX_LENGTH}
              defaultValue={result?.email ?? ''}
              error={result?.fieldErrors?.email ? t(result.fieldErrors.email) : null}
              data-personal
            />
            <SubmitButton pendingLabel={t('changeEmail.pending')}>{t('changeEmail.submit')}</SubmitButton>
          </SecureForm>
        </>
      )}
      <p>
        <Link to="/account">{t('account.back')}</Link>
      </p>
    </>
  )
}
