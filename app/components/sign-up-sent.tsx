import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { CheckEmail } from './check-email'

/**
 * /sign-up once sent (ADRs 066, 083): the same words whether or not the address has an account, the
 * address as typed, the spam folder. No password is kept to send the email again: the way is to
 * sign in, where the account page sends the verification again. `children`: the way back to sign in.
 */
export default function SignUpSent({ address, children }: { address: string | null; children: ReactNode }) {
  const { t } = useTranslation()
  return (
    <>
      <h1>{t('signUp.title')}</h1>
      <CheckEmail message={t('signUp.sent')} address={address}>
        <p>{t('checkEmail.signUpAgain')}</p>
      </CheckEmail>
      <p>{t('signUp.sentOwner')}</p>
      {children}
    </>
  )
}
