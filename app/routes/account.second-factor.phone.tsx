import { Link } from 'react-router'
import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useCaptchaForm } from '~/components/captcha'
import { Field, FormAlert, SubmitButton, useAfterSubmission } from '~/components/forms'
import { ErrorAlert } from '~/components/local-time'
import { ResendForm } from '~/components/resend-code'
import { SecureForm } from '~/components/secure-form'
import { routeHeaders } from '~/lib/headers'
import type { FieldErrors } from '~/lib/limits'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import type { CaptchaSettings } from '~/lib/recaptcha'
import { PhoneFormSchema } from '~/lib/schemas'
import { backToAccount, confirmFirst, requireSignedIn } from '~/.server/auth/account'
import { PHONE_PATH, enrolPhone, enrolmentView, type PhoneRefusal } from './account.second-factor.phone.server'
import { readAccount } from '~/.server/auth/identity-admin'
import { factorOffered } from '~/.server/auth/second-factor-kinds'
import { captchaSettings } from '~/.server/identity/recaptcha'
import { type Answers, guardForm, page, parseForm, respond, unavailable } from '~/.server/result'
import { withPageStrings } from '~/lib/i18n-browser'
import type { Route } from './+types/account.second-factor.phone'

export const headers = routeHeaders

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'phoneEnrolment.title', NOT_INDEXED)

export const clientLoader = (args: Route.ClientLoaderArgs) => withPageStrings(args)

/**
 * Adding a phone as a second factor (ADR 042): a verified address and a recent "Confirm it's you"
 * (ADR 036) first; then the number, "Send code", the SMS code, "Add". The enrolment in progress is
 * in a cookie sealed to this browser (account.second-factor.phone.server.ts).
 */
export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireSignedIn(request)
  if (!user.email) throw backToAccount()
  // A project without SMS second factors (ADR 072): the page says so, nothing is asked.
  if (!(await factorOffered('phone'))) return respond(page({ step: 'not-offered' as const }, { status: 404 }))
  const account = await readAccount(user.uid).catch(() => respond(unavailable()))
  // The service enrols only verified addresses: say so before asking for a password.
  if (!account.emailVerified) return respond(page({ step: 'unverified' as const }))
  if (!user.recentIdToken) throw confirmFirst(PHONE_PATH)
  const enrolment = enrolmentView(request, user)
  const captcha = captchaSettings('mfaSmsEnrollment')
  if (enrolment) return respond(page({ step: 'code' as const, ...enrolment, captcha }))
  return respond(page({ step: 'number' as const, captcha }))
}

/** What the page reads from any answer: the form's refusal, or the enrolment's. */
type ActionData = Answers<PhoneRefusal | { fieldErrors: FieldErrors }>

export async function action({ request, context }: Route.ActionArgs) {
  const { form, captchaResponse } = await guardForm(request, context)
  const user = await requireSignedIn(request)
  const parsed = parseForm(PhoneFormSchema, form, {})
  if (!parsed.ok) return respond<ActionData>(parsed.result)
  return respond<ActionData>(await enrolPhone(request, user, { ...parsed.data, captchaResponse }, context))
}

export default function AddPhone({ loaderData: page, actionData: result }: Route.ComponentProps) {
  const { t } = useTranslation()
  const alert = result && result.field === null ? result.message : null
  return (
    <>
      <h1>{t('phoneEnrolment.title')}</h1>
      <ErrorAlert message={alert} at={result?.retryAt} />
      {page.step === 'not-offered' ? (
        <FormAlert>{t('phoneEnrolment.notOffered')}</FormAlert>
      ) : page.step === 'unverified' ? (
        <>
          <p className="subtitle">{t('phoneEnrolment.needsVerified')}</p>
          {/* The account page's own action: "Confirm it's you" if needed, then the email (ADR 038). */}
          <SecureForm action="/account" className="stack">
            <button type="submit" name="intent" value="verify" className="button-primary">
              {t('account.sendVerification')}
            </button>
          </SecureForm>
        </>
      ) : page.step === 'number' ? (
        <NumberStep captcha={page.captcha} result={result} />
      ) : (
        <CodeStep view={page} result={result} />
      )}
      <p className="links">
        <Link to="/account">{t('account.back')}</Link>
      </p>
    </>
  )
}

type Result = ActionData | undefined
type CodeView = Extract<Route.ComponentProps['loaderData'], { step: 'code' }>

function NeedsJs() {
  const { t } = useTranslation()
  return (
    <noscript>
      <p className="alert alert-error">{t('phoneEnrolment.needsJs')}</p>
    </noscript>
  )
}

function NumberStep({ captcha, result }: { captcha: CaptchaSettings | null; result: Result }) {
  const { t } = useTranslation()
  const formRef = useRef<HTMLFormElement>(null)
  // The check runs on submit, for the action mfaSmsEnrollment (ADR 020); without JavaScript the button waits for it.
  const { onSubmit } = useCaptchaForm({ form: formRef, settings: captcha, actionFor: () => 'mfaSmsEnrollment' })
  const [hydrated, setHydrated] = useState(false)
  useEffect(() => setHydrated(true), [])
  useAfterSubmission(formRef, result)
  const error = result?.field === 'phone' ? t(result.message) : null
  return (
    <>
      <p className="subtitle">{t('phoneEnrolment.intro')}</p>
      {captcha ? <NeedsJs /> : null}
      <SecureForm ref={formRef} className="stack" noValidate onSubmit={onSubmit}>
        <Field
          label={t('phoneEnrolment.phone')}
          name="phone"
          type="tel"
          inputMode="tel"
          autoComplete="tel"
          maxLength={64}
          required
          defaultValue={result?.phone ?? ''}
          error={error}
          hint={t('phoneEnrolment.phoneHint')}
        />
        {captcha !== null && !hydrated ? (
          <button type="submit" className="button-primary" disabled>
            {t('mfa.send')}
          </button>
        ) : (
          <SubmitButton pendingLabel={t('phoneEnrolment.sending')}>{t('mfa.send')}</SubmitButton>
        )}
      </SecureForm>
    </>
  )
}

function CodeStep({ view: { phone, resendIn, sentAt, captcha }, result }: { view: CodeView; result: Result }) {
  const { t } = useTranslation()
  const codeRef = useRef<HTMLInputElement>(null)
  const error = result?.field === 'code' ? t(result.message) : null
  useEffect(() => {
    // After a wrong code the field is emptied for the next one, and focused with its message.
    if (result && codeRef.current) {
      codeRef.current.value = ''
      codeRef.current.focus()
    }
  }, [result])
  return (
    <>
      <p className="subtitle" data-personal>
        {t('mfa.smsSent', { phone })}
      </p>
      <SecureForm className="stack" noValidate>
        <Field
          inputRef={codeRef}
          label={t('phoneEnrolment.code')}
          name="code"
          className="code-input"
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          minLength={6}
          maxLength={6}
          required
          error={error}
          // The step exists for this one field, reached by the visitor's own submission.
          // eslint-disable-next-line jsx-a11y/no-autofocus
          autoFocus
        />
        <SubmitButton pendingLabel={t('phoneEnrolment.adding')}>{t('phoneEnrolment.add')}</SubmitButton>
      </SecureForm>
      {captcha ? <NeedsJs /> : null}
      <ResendForm resendIn={resendIn} sentAt={sentAt} captcha={{ settings: captcha, action: 'mfaSmsEnrollment' }} />
      <SecureForm className="stack">
        <button type="submit" name="intent" value="another" className="button-text">
          {t('phoneEnrolment.another')}
        </button>
      </SecureForm>
    </>
  )
}
