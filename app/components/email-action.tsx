import { Link, useSearchParams } from 'react-router'
import type { Ref } from 'react'
import { useTranslation } from 'react-i18next'
import type { ActionPage, ActionResult } from '~/.server/auth/email-actions'
import { withAddresses } from './address'
import { useFactorLabel } from './second-factor-name'
import { EmailField, FormAlert, SubmitButton } from './forms'
import { ErrorAlert } from './local-time'
import { SecureForm } from './secure-form'

type ConfirmPage = Exclude<ActionPage, { mode: 'invalid' }>
type Done = Extract<ActionResult, { status: 'done' }>
type Failure = Extract<ActionResult, { status: 'error' }>

const TITLES = {
  signIn: 'emailLink.title',
  verifyEmail: 'emailAction.verifyEmailTitle',
  recoverEmail: 'emailAction.recoverEmailTitle',
  verifyAndChangeEmail: 'emailAction.changeEmailTitle',
  revertSecondFactorAddition: 'emailAction.revertTitle',
} as const

/** What the 'Continue' button will do. A named second factor has its own sentence; a missing address is asked for. */
const CONFIRM = {
  signIn: 'emailLink.confirm',
  verifyEmail: 'emailAction.verifyEmailConfirm',
  recoverEmail: 'emailAction.recoverEmailConfirm',
  verifyAndChangeEmail: 'emailAction.changeEmailConfirm',
  revertSecondFactorAddition: 'emailAction.revertConfirm',
} as const

/** The heading of the link's page, its title too; a link that no longer works has the expired one's. */
export const actionTitle = (mode: ConfirmPage['mode'] | 'invalid') =>
  mode === 'invalid' ? 'newPassword.invalidTitle' : TITLES[mode]

/** The GET page of an emailed link: what the 'Continue' button will do. Nothing is spent yet. */
export function EmailActionConfirm({
  page,
  error,
  ref,
}: {
  page: ConfirmPage
  error: Failure | null
  ref?: Ref<HTMLFormElement>
}) {
  const { t } = useTranslation()
  const factorLabel = useFactorLabel()
  // The form posts to this clean URL (continueUrl, lang): never mode, apiKey or the code.
  const [searchParams] = useSearchParams()
  const action = `/action${searchParams.size ? `?${searchParams}` : ''}`
  const factor = page.mode === 'revertSecondFactorAddition' && page.factor ? factorLabel(page.factor) : null
  const newEmail = 'newEmail' in page ? page.newEmail : ''
  const askEmail = page.mode === 'signIn' && !page.email
  const explanation = askEmail
    ? t('emailLink.askEmail')
    : factor
      ? t('emailAction.revertConfirmFactor', { email: page.email, factor })
      : t(CONFIRM[page.mode], { email: page.email ?? '', newEmail })
  return (
    <>
      <h1>{t(TITLES[page.mode])}</h1>
      <ErrorAlert message={error?.message} at={error?.retryAt} />
      {/* The explanation names the account's address: kept out of Session Replay (ADR 030). */}
      <p className="subtitle" data-personal>
        {withAddresses(explanation, [page.email, newEmail])}
      </p>
      <SecureForm ref={ref} action={action} className="stack" noValidate>
        {askEmail ? <EmailField defaultValue={error?.email ?? ''} /> : null}
        <SubmitButton pendingLabel={t('emailAction.pending')}>{t('emailAction.continue')}</SubmitButton>
      </SecureForm>
    </>
  )
}

/** After the code was spent: what changed, and for an undone change, the advice to reset the password. */
const DONE = {
  verifyEmail: ['emailAction.verifyEmailDone', null],
  recoverEmail: ['emailAction.recoverEmailDone', 'emailAction.recoverEmailAdvice'],
  verifyAndChangeEmail: ['emailAction.changeEmailDone', null],
  revertSecondFactorAddition: ['emailAction.revertDone', 'emailAction.revertAdvice'],
} as const

/** After the code was spent: what changed, and where to go next. */
export function EmailActionDone({ result }: { result: Done }) {
  const { t } = useTranslation()
  const resetLink = `/forgot-password?${new URLSearchParams({ email: result.email })}`
  const [messageKey, adviceKey] = DONE[result.mode]
  const message = t(messageKey, { email: result.email, newEmail: result.newEmail ?? '' })
  const advice = adviceKey ? t(adviceKey) : null
  return (
    <>
      <h1>{t(TITLES[result.mode])}</h1>
      {/* The message may name the account's address: kept out of Session Replay (ADR 030). */}
      <FormAlert tone="success">
        <span data-personal>{withAddresses(message, [result.email, result.newEmail])}</span>
      </FormAlert>
      {advice ? <p>{advice}</p> : null}
      <p className="links">
        {advice ? (
          <Link to={resetLink} data-personal>
            {t('emailAction.resetPassword')}
          </Link>
        ) : null}
        {result.continueTo ? <a href={result.continueTo}>{t('emailAction.next')}</a> : null}
        <Link to="/">{t('error.backToSignIn')}</Link>
      </p>
    </>
  )
}
