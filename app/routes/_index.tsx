import { Link, useSearchParams } from 'react-router'
import { lazy, Suspense, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { useCaptchaForm } from '~/components/captcha'
import { EmailField, Field, SubmitButton, useAfterSubmission, useFieldValue } from '~/components/forms'
import { ErrorAlert } from '~/components/local-time'
import { PasskeySignIn } from '~/components/passkey-sign-in'
import { ProviderMark } from '~/components/provider-mark'
import { RedirectHelp } from '~/components/redirect-help'
import { SignedIn } from '~/components/signed-in'
import { WholeWords } from '~/components/whole-words'
import { SecureForm } from '~/components/secure-form'
import { routeHeaders } from '~/lib/headers'
import { withSentStrings } from '~/lib/i18n-browser'
import { pageTitle } from '~/lib/meta'
import type { TranslationKey } from '~/lib/i18n'
import type { FieldErrors } from '~/lib/limits'
import type { CaptchaSettings } from '~/lib/recaptcha'
import { ForgotPasswordFormSchema } from '~/lib/schemas'
import { resendSignInLink, sendSignInLink } from '~/.server/auth/email-link'
import { sentView } from '~/.server/auth/email-sent'
import { getFlags } from '~/.server/ops/flags'
import { getLocale } from '~/.server/i18n'
import { captchaSettings } from '~/.server/identity/recaptcha'
import { checkRedirectParam } from '~/.server/policy/redirect'
import { errorPage, guardForm, keptEmail, page, parseForm, redirectTo, respond, unavailable } from '~/.server/result'
import { pageSession } from '~/.server/auth/session'
import { continueTarget, SignInFormSchema, signInWithPassword } from './sign-in.server'
import { signInPageError } from '~/.server/auth/sign-in-page'
import { ssoOffered, ssoProviderMark, ssoProviderName } from '~/.server/auth/sso'
import type { Route } from './+types/_index'

export const headers = routeHeaders

/**
 * A browser loads it only once a link is on its way: the form's first visit is at its JavaScript
 * budget. The server renders it at once, whole, for a browser without JavaScript too.
 */
const LinkSent = import.meta.env.SSR
  ? (await import('~/components/link-sent')).default
  : lazy(() => withSentStrings(import('~/components/link-sent')))

/** Signed in, or a link sent, the page is no longer a sign-in form: its title says what it is now. */
export const meta: Route.MetaFunction = ({ matches, loaderData: page }) =>
  pageTitle(matches, page?.user ? 'signIn.signedInTitle' : page?.sent ? 'emailLink.sentTitle' : titleOf(page))

const titleOf = (page?: { sso: boolean }) => (page?.sso ? 'signIn.titleSso' : 'signIn.title')

const REDIRECT_ERRORS = { invalid: 'error.invalidRedirect', missing: 'error.missingRedirect' } as const

export async function loader({ request, context }: Route.LoaderArgs) {
  const params = new URL(request.url).searchParams
  const [{ session, cookies }, target, flags] = await Promise.all([
    pageSession(request),
    checkRedirectParam(params.get('redirect'), context.publicOrigin),
    getFlags(),
  ])
  // Nobody could judge the session: it stays, and the visitor is told to come back (ADR 029).
  if (session.status === 'unavailable') return respond(unavailable())
  if (session.status === 'signed-in' && target.kind === 'ok')
    return respond(redirectTo(target.redirect.url, { status: 302, cookies }))
  return respond(
    page(
      {
        user: session.status === 'signed-in' ? { email: session.user.email ?? '' } : null,
        continueTo:
          session.status === 'signed-in' ? await continueTarget(params.get('continueUrl'), context.publicOrigin) : null,
        redirectError: target.kind === 'invalid' || target.kind === 'missing' ? REDIRECT_ERRORS[target.kind] : null,
        sso: flags.sso,
        ssoButton: ssoOffered(flags),
        ssoName: ssoProviderName(),
        ssoMark: ssoProviderMark(),
        ssoError: signInPageError(params),
        emailLink: flags.emailLinkSignIn,
        passkeys: flags.passkeys,
        sent: flags.emailLinkSignIn && params.get('emailLink') === 'sent' ? sentView(request, 'sign-in-link') : null,
        signUp: flags.signUp,
        // Both buttons' actions (signInWithPassword, getOobCode) fall under the email/password provider.
        captcha: captchaSettings('signInWithPassword'),
      },
      { cookies },
    ),
  )
}

export async function action({ request, context }: Route.ActionArgs) {
  // As the root answered it while this page was an index route: "/" takes a form's POST, nothing else.
  if (request.method !== 'POST') return respond(errorPage(405, 'method-not-allowed'))
  const { form, redirect, captchaResponse } = await guardForm(request, context)
  // Kept for the form when it comes back, the password never; "Keep me signed in" (ADR 037) too.
  const kept = { email: keptEmail(form), remember: form.has('remember') }
  if (redirect.kind === 'invalid' || redirect.kind === 'missing')
    return respond(page<ActionData>({ ...kept, formError: REDIRECT_ERRORS[redirect.kind] }, { status: 400 }))
  // What both buttons carry on.
  const shared = { redirect: redirect.kind === 'ok' ? redirect.redirect : null, ...kept, captchaResponse }
  const intent = form.get('intent')
  const linkOn = (intent === 'resend' || intent === 'email-link') && (await getFlags()).emailLinkSignIn
  if (intent === 'resend' && linkOn)
    return respond<ActionData>(await resendSignInLink(request, { ...shared, kept, locale: getLocale(request) }, context))
  if (intent === 'email-link' && linkOn) {
    // 'Email me a sign-in link' needs only the address.
    const parsed = parseForm(ForgotPasswordFormSchema, form, kept)
    if (!parsed.ok) return respond<ActionData>(parsed.result)
    return respond<ActionData>(await sendSignInLink(request, { ...shared, ...parsed.data, locale: getLocale(request) }, context))
  }
  const parsed = parseForm(SignInFormSchema, form, kept)
  if (!parsed.ok) return respond<ActionData>(parsed.result)
  return respond<ActionData>(await signInWithPassword(request, { ...shared, ...parsed.data }, context))
}

type ActionData = {
  email: string
  remember: boolean
  formError?: TranslationKey
  retryAt?: number
  fieldErrors?: FieldErrors
  captcha?: CaptchaSettings | null
  /** The answer to "Send the link again": the page stays the one that says it went. */
  resend?: boolean
}

export default function SignIn({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation()
  const { user, continueTo, redirectError, sso, ssoButton, ssoName, ssoMark, ssoError, emailLink, sent, passkeys, captcha, signUp } =
    loaderData
  const [searchParams] = useSearchParams()
  const redirectTo = searchParams.get('redirect')
  const { value: email, field: emailField } = useFieldValue(actionData?.email ?? searchParams.get('email') ?? '')
  const formRef = useRef<HTMLFormElement>(null)
  const { onSubmit, retrying } = useCaptchaForm({
    form: formRef,
    settings: captcha,
    result: actionData,
    actionFor: (submitter) => {
      const intent = submitter?.getAttribute('value')
      // Single sign-on calls nothing the captcha protects: it goes as it is.
      return intent === 'sso' ? null : intent === 'email-link' ? 'getOobCode' : 'signInWithPassword'
    },
  })
  // While a refused captcha is retried, its answer is neither shown nor allowed to empty the password.
  useAfterSubmission(formRef, retrying ? undefined : actionData)

  if (user) return <SignedIn email={user.email} continueTo={continueTo} />

  const formError = (retrying ? null : actionData?.formError) ?? redirectError ?? ssoError
  const authDomain = searchParams.get('authDomain')
  const fieldErrors = actionData?.fieldErrors ?? {}
  const forgot = new URLSearchParams()
  if (email) forgot.set('email', email)
  if (redirectTo !== null) forgot.set('redirect', redirectTo)

  if (sent && (!actionData || actionData.resend)) {
    // One state: the link is on its way. The form comes back through the link, redirect kept.
    return (
      <Suspense>
        <LinkSent sent={sent} redirectTo={redirectTo} captcha={captcha} retryAt={actionData?.retryAt} />
      </Suspense>
    )
  }

  return (
    <>
      <h1>{sso ? <WholeWords text={t('signIn.titleSso')} /> : t('signIn.title')}</h1>
      <ErrorAlert message={formError} at={retrying ? null : actionData?.retryAt}>
        <RedirectHelp error={formError} />
      </ErrorAlert>
      <SecureForm ref={formRef} className="stack" noValidate onSubmit={onSubmit}>
        {redirectTo !== null ? <input type="hidden" name="redirect" value={redirectTo} /> : null}
        {ssoButton ? (
          // The single sign-on variant: its provider first, by name when it is known, in the same
          // form so that it takes "Keep me signed in" along (ADR 043). Enter in a field presses a
          // form's first button: here the hidden copy of "Login", so a typed password never starts
          // single sign-on.
          <>
            <button type="submit" hidden tabIndex={-1} aria-hidden="true">
              {t('signIn.submit')}
            </button>
            {authDomain !== null ? <input type="hidden" name="authDomain" value={authDomain} /> : null}
            <button
              type="submit"
              name="intent"
              value="sso"
              formAction="/sso/start"
              formNoValidate
              className="button-secondary button-block button-provider"
            >
              <ProviderMark kind={ssoMark} />
              {ssoName ? t('sso.continueWith', { name: ssoName }) : t('sso.continue')}
            </button>
            <p className="divider">{t('sso.or')}</p>
          </>
        ) : null}
        <EmailField
          {...emailField}
          errorKey={fieldErrors.email}
          {...(passkeys ? { autoComplete: 'username webauthn' } : {})}
        />
        <Field
          label={t('signIn.password')}
          name="password"
          type="password"
          autoComplete="current-password"
          placeholder={t('signIn.passwordPlaceholder')}
          required
          error={fieldErrors.password ? t(fieldErrors.password) : null}
        />
        {/* The label wraps the box, so the whole line toggles it; in a block of its own, so that a text browser
            (w3m) shows it on its own line, not run into the button. */}
        <div>
          <label className="checkbox">
            <input type="checkbox" name="remember" defaultChecked={actionData?.remember ?? false} />
            <span>{t('signIn.remember')}</span>
          </label>
        </div>
        <SubmitButton pendingLabel={t('signIn.pending')}>{t('signIn.submit')}</SubmitButton>
        {emailLink ? (
          <button type="submit" name="intent" value="email-link" className="button-secondary">
            {t('emailLink.send')}
          </button>
        ) : null}
      </SecureForm>
      {passkeys ? <PasskeySignIn form={formRef} /> : null}
      <p className="links">
        {/* Its link carries the typed address: kept out of Session Replay (ADR 030). */}
        <Link to={`/forgot-password${forgot.size ? `?${forgot}` : ''}`} data-personal>
          {t('signIn.forgotPassword')}
        </Link>
        {signUp ? (
          <Link to={redirectTo !== null ? `/sign-up?${new URLSearchParams({ redirect: redirectTo })}` : '/sign-up'}>
            {t('signIn.createAccount')}
          </Link>
        ) : null}
      </p>
    </>
  )
}
