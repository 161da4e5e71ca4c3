import { Link, useSearchParams } from 'react-router'
import { useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { useCaptchaForm } from '~/components/captcha'
import { CheckEmail } from '~/components/check-email'
import { ResendForm } from '~/components/resend-code'
import { EmailField, FormAlert, SubmitButton, useAfterSubmission } from '~/components/forms'
import { SecureForm } from '~/components/secure-form'
import { withPageStrings } from '~/lib/i18n-browser'
import { routeHeaders } from '~/lib/headers'
import { pageTitle } from '~/lib/meta'
import { signInLink } from '~/lib/sign-in-link'
import type { FieldErrors } from '~/lib/limits'
import { ForgotPasswordFormSchema, formText } from '~/lib/schemas'
import { getLocale } from '~/.server/i18n'
import { requestPasswordReset } from './forgot-password.server'
import { resendable, sentView } from '~/.server/auth/email-sent'
import { captchaSettings } from '~/.server/identity/recaptcha'
import { guardForm, keptEmail, page, parseForm, redirectTo, respond } from '~/.server/result'
import type { Route } from './+types/forgot-password'

export const headers = routeHeaders

export const clientLoader = (args: Route.ClientLoaderArgs) => withPageStrings(args)

/** Once sent, the page is about the email on its way: its title and heading say so. */
export const meta: Route.MetaFunction = ({ matches, loaderData }) =>
  pageTitle(matches, loaderData?.sent ? 'forgotPassword.sentTitle' : 'forgotPassword.title')

export function loader({ request }: Route.LoaderArgs) {
  const sent = new URL(request.url).searchParams.get('sent') === '1'
  return respond(page({ sent, view: sent ? sentView(request) : null, captcha: captchaSettings('getOobCode') }))
}

/** What the page reads from any answer: the form again, with what went wrong. */
type ActionData = {
  email?: string
  fieldErrors?: FieldErrors
  formError?: 'error.captchaNeedsJs' | 'error.tooManyRequestsAt'
  retryAt?: number
}

export async function action({ request, context }: Route.ActionArgs) {
  const { form, redirect, captchaResponse } = await guardForm(request, context)
  // "Send the email again": this browser's address, after the wait, then the first send's checks and limits.
  if (formText(form, 'intent') === 'resend') {
    const again = resendable(request)
    if (again === null) return respond(redirectTo(forgotLink(form)))
    if ('retryAt' in again) return respond<ActionData>(page({ formError: 'error.tooManyRequestsAt', ...again }, { status: 429 }))
    form.set('email', again.email)
  }
  const parsed = parseForm(ForgotPasswordFormSchema, form, { email: keptEmail(form) })
  if (!parsed.ok) return respond<ActionData>(parsed.result)
  // Only a redirect the policy accepts travels in the email's link, as it was given.
  const reset = {
    email: parsed.data.email,
    locale: getLocale(request),
    redirect: redirect.kind === 'ok' ? redirect.redirect.param : null,
    captchaResponse,
  }
  return respond<ActionData>(await requestPasswordReset(request, reset, context))
}

const forgotLink = (form: FormData) =>
  form.has('redirect')
    ? `/forgot-password?${new URLSearchParams({ redirect: formText(form, 'redirect') })}`
    : '/forgot-password'

export default function ForgotPassword({ loaderData: { sent, view, captcha }, actionData }: Route.ComponentProps) {
  const { t } = useTranslation()
  const [searchParams] = useSearchParams()
  const redirectTo = searchParams.get('redirect')
  const formRef = useRef<HTMLFormElement>(null)
  useAfterSubmission(formRef, actionData)
  // The answer is the same whatever the service decides (no enumeration): nothing to retry.
  const { onSubmit } = useCaptchaForm({ form: formRef, settings: captcha, actionFor: () => 'getOobCode' })
  const back = signInLink(redirectTo)
  const emailError = actionData?.fieldErrors?.email

  return (
    <>
      <h1>{t(sent ? 'forgotPassword.sentTitle' : 'forgotPassword.title')}</h1>
      {sent ? (
        <CheckEmail
          message={t('forgotPassword.emailSent')}
          address={view?.address ?? null}
          retryAt={actionData?.retryAt}
        >
          <ResendForm
            label="checkEmail.resend"
            resendIn={view?.resendIn ?? 0}
            sentAt={view?.sentAt ?? null}
            captcha={{ settings: captcha, action: 'getOobCode' }}
          >
            {redirectTo !== null ? <input type="hidden" name="redirect" value={redirectTo} /> : null}
          </ResendForm>
        </CheckEmail>
      ) : (
        <>
          {actionData?.formError === 'error.captchaNeedsJs' ? <FormAlert>{t(actionData.formError)}</FormAlert> : null}
          <p className="subtitle">{t('forgotPassword.subtitle')}</p>
          <SecureForm ref={formRef} className="stack" noValidate onSubmit={onSubmit}>
            {redirectTo !== null ? <input type="hidden" name="redirect" value={redirectTo} /> : null}
            <EmailField defaultValue={actionData?.email ?? searchParams.get('email') ?? ''} errorKey={emailError} />
            <SubmitButton pendingLabel={t('forgotPassword.pending')}>{t('forgotPassword.submit')}</SubmitButton>
          </SecureForm>
        </>
      )}
      <p className="links">
        <Link to={back}>{t('forgotPassword.back')}</Link>
      </p>
    </>
  )
}
