import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import type { CaptchaSettings } from '~/lib/recaptcha'
import { signInLink } from '~/lib/sign-in-link'
import { CheckEmail } from './check-email'
import { ResendForm } from './resend-code'

/**
 * "/", once a sign-in link is on its way (ADR 083): the neutral sentence, the address as typed,
 * the spam folder, and "Send the link again" after the wait, through the first send's checks and limits.
 * Its own module: the sign-in form's first visit loads none of it.
 */
export default function LinkSent({
  sent,
  redirectTo,
  captcha,
  retryAt,
}: {
  sent: { address: string | null; resendIn: number; sentAt: number | null } | null
  redirectTo: string | null
  captcha: CaptchaSettings | null
  retryAt?: number | null
}) {
  const { t } = useTranslation()
  return (
    <>
      <h1>{t('emailLink.sentTitle')}</h1>
      <CheckEmail message={t('emailLink.sent')} address={sent?.address ?? null} retryAt={retryAt}>
        <ResendForm
          label="checkEmail.resendLink"
          resendIn={sent?.resendIn ?? 0}
          sentAt={sent?.sentAt ?? null}
          captcha={{ settings: captcha, action: 'getOobCode' }}
        >
          {redirectTo !== null ? <input type="hidden" name="redirect" value={redirectTo} /> : null}
        </ResendForm>
      </CheckEmail>
      <p className="links">
        <Link to={signInLink(redirectTo)}>{t('error.backToSignIn')}</Link>
      </p>
    </>
  )
}
