import { Link } from 'react-router'
import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useCaptchaForm } from '~/components/captcha'
import { phoneEnding, useFactorLabel } from '~/components/second-factor-name'
import { Field, SubmitButton } from '~/components/forms'
import { ErrorAlert } from '~/components/local-time'
import { ResendForm } from '~/components/resend-code'
import { SecureForm } from '~/components/secure-form'
import { routeHeaders } from '~/lib/headers'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import type { CaptchaSettings } from '~/lib/recaptcha'
import { SecondFactorFormSchema } from '~/lib/schemas'
import { errorPage, guardForm, parseForm, respond } from '~/.server/result'
import { secondFactorAction, secondFactorView, type SecondFactorView } from '~/.server/auth/second-factor'
import type { Route } from './+types/second-factor'

export const headers = routeHeaders

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'meta.secondFactor', NOT_INDEXED)

/**
 * The second factor at sign-in (ADR 022). The pending sign-in is in a sealed cookie bound to this
 * browser; without it (expired, or never) the visitor goes back to sign in with a message.
 */
export function loader({ request }: Route.LoaderArgs) {
  return respond(secondFactorView(request))
}

export async function action({ request, context }: Route.ActionArgs) {
  const { form, captchaResponse } = await guardForm(request, context)
  const parsed = parseForm(SecondFactorFormSchema, form, {})
  // Every field is read as text and never refused: a failure is a forged form, for the error page.
  if (!parsed.ok) return respond(errorPage(400, 'bad-form'))
  return respond(await secondFactorAction(request, { ...parsed.data, captchaResponse }, context))
}

export default function SecondFactorStep({ loaderData: { view }, actionData: answer }: Route.ComponentProps) {
  const { t } = useTranslation()
  const message = answer?.message
  // A wrong code is about the one field: it stands under it. What ends or stops the step is at the top.
  const codeError = message === 'mfa.wrongCode' ? message : null
  const notice = view.notice && view.notice !== 'mfa.resent' ? view.notice : null
  const shown = codeError ? null : (message ?? notice)
  // "Use another method" is named only where it is on the page.
  const alert = shown === 'mfa.sendFailed' && !(view.step === 'code' && view.several) ? 'mfa.sendFailedOne' : shown
  const retryAt = message ? answer?.retryAt : view.step === 'code' ? view.retryAt : null

  return (
    <>
      <h1>{t('mfa.title')}</h1>
      <ErrorAlert message={alert} at={retryAt} />
      {view.notice === 'mfa.resent' && !message ? <p role="status">{t('mfa.resent')}</p> : null}
      {view.step === 'choose' ? (
        <Chooser view={view} />
      ) : (
        <CodeStep view={view} hasError={Boolean(message)} codeError={codeError} />
      )}
      <p className="links">
        {/* Its address may carry the account's (?email=): kept out of Session Replay (ADR 030). */}
        <Link to={view.back} data-personal>
          {t(view.confirming ? 'mfa.backToAccount' : 'mfa.back')}
        </Link>
      </p>
    </>
  )
}

function Chooser({ view }: { view: Extract<SecondFactorView, { step: 'choose' }> }) {
  const { t } = useTranslation()
  const label = useFactorLabel()
  return (
    <>
      <p className="subtitle">{t('mfa.choose')}</p>
      <SecureForm className="stack">
        <input type="hidden" name="intent" value="choose" />
        {view.factors.map((factor) => (
          <button key={factor.id} type="submit" name="factor" value={factor.id} className="button-secondary">
            {label(factor)}
          </button>
        ))}
      </SecureForm>
    </>
  )
}

function CodeStep({
  view,
  hasError,
  codeError,
}: {
  view: Extract<SecondFactorView, { step: 'code' }>
  hasError: boolean
  codeError: 'mfa.wrongCode' | null
}) {
  const { t } = useTranslation()
  const { factor } = view
  const codeRef = useRef<HTMLInputElement>(null)
  const phone = factor.kind === 'phone' ? factor.phone : null
  let where: string
  if (phone !== null) {
    const ending = t('mfa.phoneEnding', { digits: phoneEnding(phone) })
    where = view.sent ? t('mfa.smsSent', { phone: ending }) : t('mfa.smsNotSent', { phone: ending })
  } else where = factor.displayName ? t('mfa.totpPromptNamed', { name: factor.displayName }) : t('mfa.totpPrompt')
  const canVerify = phone === null || view.sent

  useEffect(() => {
    // After a refused code the field is emptied for the next one; a wrong code puts the focus on it,
    // where its message is read as the field's description (any other error's alert has the focus).
    if (!hasError || !codeRef.current) return
    codeRef.current.value = ''
    if (codeError) codeRef.current.focus()
  }, [hasError, codeError])

  return (
    <>
      <p className="subtitle">{where}</p>
      {view.captcha ? <SmsCaptcha settings={view.captcha} /> : null}
      {canVerify ? (
        <SecureForm className="stack" noValidate>
          <Field
            inputRef={codeRef}
            label={t('mfa.code')}
            name="code"
            error={codeError ? t(codeError) : null}
            className="code-input"
            type="text"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            minLength={6}
            maxLength={6}
            required
            // The step exists for this one field, reached by the visitor's own submission: focusing it is expected.
            // eslint-disable-next-line jsx-a11y/no-autofocus
            autoFocus
          />
          <SubmitButton pendingLabel={t('mfa.pending')}>{t('mfa.verify')}</SubmitButton>
        </SecureForm>
      ) : null}
      {phone !== null && view.sent ? <ResendForm resendIn={view.resendIn} sentAt={view.sentAt} /> : null}
      {/* No code went (the service failed, or a limit): asking again is the way on. */}
      {phone !== null && !view.sent && !view.captcha ? (
        <SecureForm className="stack">
          <button type="submit" name="intent" value="resend" className="button-primary">
            {t('mfa.resend')}
          </button>
        </SecureForm>
      ) : null}
      {view.several ? (
        <SecureForm className="stack">
          <button type="submit" name="intent" value="another" className="button-secondary">
            {t('mfa.another')}
          </button>
        </SecureForm>
      ) : null}
    </>
  )
}

/**
 * Where the project demands reCAPTCHA Enterprise for SMS, the code is sent after an invisible
 * check (action `mfaSmsSignIn`) that needs JavaScript; without it the step says so.
 */
function SmsCaptcha({ settings }: { settings: CaptchaSettings }) {
  const { t } = useTranslation()
  const formRef = useRef<HTMLFormElement>(null)
  const { onSubmit } = useCaptchaForm({ form: formRef, settings, actionFor: () => 'mfaSmsSignIn' })
  // Without JavaScript the button stays disabled: the check cannot run.
  const [hydrated, setHydrated] = useState(false)
  useEffect(() => setHydrated(true), [])
  return (
    <>
      <noscript>
        <p className="alert alert-error">{t('mfa.needsJs')}</p>
      </noscript>
      <SecureForm ref={formRef} className="stack" onSubmit={onSubmit}>
        <button type="submit" name="intent" value="resend" className="button-primary" disabled={!hydrated}>
          {t('mfa.send')}
        </button>
      </SecureForm>
    </>
  )
}
