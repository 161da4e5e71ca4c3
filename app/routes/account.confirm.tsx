import { Link } from 'react-router'
import { useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { AccountChip } from '~/components/account-chip'
import { useCaptchaForm } from '~/components/captcha'
import { Field, SubmitButton, useAfterSubmission } from '~/components/forms'
import { ErrorAlert } from '~/components/local-time'
import { SecureForm } from '~/components/secure-form'
import { routeHeaders } from '~/lib/headers'
import type { TranslationKey } from '~/lib/i18n'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import type { CaptchaSettings } from '~/lib/recaptcha'
import type { FieldErrors } from '~/lib/limits'
import { ConfirmPasswordFormSchema } from '~/lib/schemas'
import { accountPath, requireSignedIn, withoutPassword } from '~/.server/auth/account'
import { confirmPassword } from './account.confirm.server'
import { confirmThenOf } from '~/.server/auth/recent-login'
import { SIGN_IN_PAGE_ERRORS } from '~/.server/auth/sign-in-page'
import { captchaSettings } from '~/.server/identity/recaptcha'
import { guardForm, page, parseForm, respond } from '~/.server/result'
import { withPageStrings } from '~/lib/i18n-browser'
import type { Route } from './+types/account.confirm'

export const headers = routeHeaders

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'meta.accountConfirm', NOT_INDEXED)

/**
 * "Confirm it's you" (ADR 036): the password again, then the account's second factor if it has
 * one (the sign-in's own step), then back to the account page that asked (`next`). An account of
 * the portal's provider only goes through that provider again (ADR 043). A step or a round trip
 * that did not confirm comes back here with its reason (`mfaError`, `ssoError`).
 */
const STEP_ERRORS: Partial<Record<string, TranslationKey>> = {
  expired: 'confirm.stepExpired',
  invalid: 'confirm.stepInvalid',
}
const SSO_ERRORS: Partial<Record<string, TranslationKey>> = {
  ...SIGN_IN_PAGE_ERRORS.ssoError,
  mismatch: 'confirm.userMismatch',
}

export const clientLoader = (args: Route.ClientLoaderArgs) => withPageStrings(args)

export async function loader({ request, url }: Route.LoaderArgs) {
  const user = await requireSignedIn(request)
  const params = url.searchParams
  return respond(
    page({
      // The account being confirmed, shown above the password (a session may name no address).
      email: user.email,
      next: accountPath(params.get('next')),
      then: confirmThenOf(params.get('then')),
      stepError: STEP_ERRORS[params.get('mfaError') ?? ''] ?? SSO_ERRORS[params.get('ssoError') ?? ''] ?? null,
      // An account of a provider only: its provider again, through the portal's single sign-on when it is that one.
      noPassword: await withoutPassword(user),
      captcha: captchaSettings('signInWithPassword'),
    }),
  )
}

type ActionData = { formError?: TranslationKey; retryAt?: number; fieldErrors?: FieldErrors; captcha?: CaptchaSettings | null }

export async function action({ request, url, context }: Route.ActionArgs) {
  const { form, captchaResponse } = await guardForm(request, context)
  const user = await requireSignedIn(request)
  // No password to check: nothing is sent to the service, nothing counted.
  if (await withoutPassword(user)) return respond(page<ActionData>({}, { status: 403 }))
  const parsed = parseForm(ConfirmPasswordFormSchema, form, {})
  if (!parsed.ok) return respond<ActionData>(parsed.result)
  const after = { next: accountPath(url.searchParams.get('next')), then: confirmThenOf(url.searchParams.get('then')) }
  const input = { password: parsed.data.password, captchaResponse }
  return respond<ActionData>(await confirmPassword(request, user, input, after, context))
}

export default function ConfirmItsYou({ loaderData, actionData: result }: Route.ComponentProps) {
  const { t } = useTranslation()
  const { email, next, then, noPassword, stepError, captcha } = loaderData
  const formRef = useRef<HTMLFormElement>(null)
  const { onSubmit, retrying } = useCaptchaForm({
    form: formRef,
    settings: captcha,
    result,
    actionFor: () => 'signInWithPassword',
  })
  useAfterSubmission(formRef, retrying ? undefined : result)
  const formError = retrying ? null : (result?.formError ?? stepError)
  return (
    <>
      <h1>{t('confirm.title')}</h1>
      {/* No password to ask for: the page says how to confirm instead, as its text, not as an error. */}
      <p className="subtitle">
        {!noPassword
          ? t('confirm.intro')
          : noPassword.sso
            ? noPassword.provider
              ? t('confirm.withProvider', { provider: noPassword.provider })
              : t('confirm.withSso')
            : noPassword.provider
              ? t('confirm.viaProvider', { provider: noPassword.provider })
              : t('confirm.noPassword')}
      </p>
      {email ? <AccountChip email={email} /> : null}
      {!noPassword || noPassword.sso ? <ErrorAlert message={formError} at={retrying ? null : result?.retryAt} /> : null}
      {noPassword?.sso ? (
        <SecureForm action="/sso/start" className="stack">
          <input type="hidden" name="intent" value="confirm" />
          <input type="hidden" name="next" value={next} />
          {then ? <input type="hidden" name="then" value={then} /> : null}
          <button type="submit" className="button-primary">
            {noPassword.provider ? t('sso.continueWith', { name: noPassword.provider }) : t('sso.continue')}
          </button>
        </SecureForm>
      ) : null}
      {noPassword ? null : (
        <SecureForm ref={formRef} className="stack" noValidate onSubmit={onSubmit}>
          {/* The account's address for password managers (Chrome: "Password forms should have username fields"); not posted. */}
          {email ? <input type="email" autoComplete="username" value={email} readOnly hidden data-personal /> : null}
          <Field
            label={t('signIn.password')}
            name="password"
            type="password"
            autoComplete="current-password"
            required
            error={result?.fieldErrors?.password ? t(result.fieldErrors.password) : null}
          />
          <SubmitButton pendingLabel={t('confirm.pending')}>{t('confirm.submit')}</SubmitButton>
        </SecureForm>
      )}
      <p>
        <Link to="/account">{t('account.back')}</Link>
      </p>
    </>
  )
}
