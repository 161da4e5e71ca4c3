import { isRouteErrorResponse, Link, useSearchParams } from 'react-router'
import { lazy, Suspense, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { useCaptchaForm } from '~/components/captcha'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { EmailField, FormAlert, useFieldValue } from '~/components/forms'
import { NewPasswordForm, type PasswordFormLabels } from '~/components/new-password-form'
import { routeHeaders } from '~/lib/headers'
import { withSentStrings } from '~/lib/i18n-browser'
import { pageTitle } from '~/lib/meta'
import { extraTokenField } from '~/lib/recaptcha'
import { signInLink } from '~/lib/sign-in-link'
import { SignUpFormSchema } from '~/lib/schemas'
import { requestSignUp, signUpTurnedOff } from './sign-up.server'
import { sentView } from '~/.server/auth/email-sent'
import { getConfig } from '~/.server/config'
import { getLocale } from '~/.server/i18n'
import { getFlags } from '~/.server/ops/flags'
import { captchaSettings } from '~/.server/identity/recaptcha'
import { redirectOf } from '~/.server/policy/redirect'
import { errorPage, guardForm, page, postedCaptchaToken, respond } from '~/.server/result'
import type { Route } from './+types/sign-up'

export const headers = routeHeaders

/** A browser loads it only once sent: the form's first visit is at its JavaScript budget. */
const SignUpSent = import.meta.env.SSR
  ? (await import('~/components/sign-up-sent')).default
  : lazy(() => withSentStrings(import('~/components/sign-up-sent')))

/** Once sent, the tab says to check the email; with FLAG_SIGN_UP off the page does not exist. */
export const meta: Route.MetaFunction = ({ matches, loaderData, error }) =>
  pageTitle(
    matches,
    error
      ? isRouteErrorResponse(error) && error.status === 404
        ? 'error.pageNotFound'
        : 'meta.error'
      : loaderData?.sent
        ? 'signUp.sentTitle'
        : 'meta.signUp',
  )

/** With the flag off, the same 404 as any unknown page. */
async function requireSignUp() {
  if (!(await getFlags()).signUp) respond(errorPage(404, 'sign-up-off'))
}

export async function loader({ request }: Route.LoaderArgs) {
  await requireSignUp()
  const turnedOff = signUpTurnedOff()
  const sent = new URL(request.url).searchParams.get('sent') === '1'
  return respond(
    page(
      {
        sent,
        // The address as typed, from this browser's own cookie: nothing about an account (ADR 083).
        address: sent ? sentView(request, 'sign-up').address : null,
        turnedOff,
        minLength: getConfig().passwordMinLength,
        captcha: captchaSettings('signUpPassword'),
      },
      { status: turnedOff ? 403 : 200 },
    ),
  )
}

export async function action({ request, context }: Route.ActionArgs) {
  await requireSignUp()
  const { form, redirect, captchaResponse } = await guardForm(request, context)
  // Any text parses: the flow judges the address and the password together.
  const input = SignUpFormSchema.parse(Object.fromEntries(form))
  const captcha = { signUp: captchaResponse, reset: postedCaptchaToken(form, extraTokenField('getOobCode')) }
  // Only a redirect the policy accepts travels in the emails' links, as it was given.
  const signUp = { ...input, locale: getLocale(request), redirect: redirectOf(redirect)?.param ?? null, captcha }
  return respond(await requestSignUp(request, signUp, context))
}

const LABELS: PasswordFormLabels = {
  password: 'signUp.password',
  confirm: 'signUp.confirm',
  submit: 'signUp.submit',
  pending: 'signUp.pending',
}

export default function SignUp({ loaderData, actionData: result }: Route.ComponentProps) {
  const { t } = useTranslation()
  const { sent, address, turnedOff, minLength, captcha } = loaderData
  const [searchParams] = useSearchParams()
  const redirectTo = searchParams.get('redirect')
  const formRef = useRef<HTMLFormElement>(null)
  const { value: email, field: emailField } = useFieldValue(result?.email ?? searchParams.get('email') ?? '')
  // The answer is the same whatever the service decides (nothing revealed): nothing to retry.
  const { onSubmit } = useCaptchaForm({
    form: formRef,
    settings: captcha,
    actionFor: () => 'signUpPassword',
    alsoFor: ['getOobCode'],
  })
  const formError = turnedOff ? 'signUp.turnedOff' : (result?.formError ?? null)
  const back = (
    <p className="links">
      <Link to={signInLink(redirectTo)}>{t('error.backToSignIn')}</Link>
    </p>
  )

  if (sent && !turnedOff) {
    return (
      <Suspense>
        <SignUpSent address={address}>{back}</SignUpSent>
      </Suspense>
    )
  }
  return (
    <>
      <h1>{t('signUp.title')}</h1>
      {formError ? <FormAlert>{t(formError)}</FormAlert> : null}
      {formError === 'signUp.turnedOff' ? null : (
        <>
          <p className="subtitle">{t('signUp.subtitle')}</p>
          <NewPasswordForm
            email={email}
            minLength={minLength}
            result={result}
            rejection={result?.rejection ?? null}
            labels={LABELS}
            formRef={formRef}
            onChecked={onSubmit}
            fields={
              <>
                {redirectTo !== null ? <input type="hidden" name="redirect" value={redirectTo} /> : null}
                <EmailField {...emailField} errorKey={result?.emailError} />
              </>
            }
          />
        </>
      )}
      {back}
    </>
  )
}

export const ErrorBoundary = GeneralErrorBoundary
