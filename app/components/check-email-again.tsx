import type { ComponentProps } from 'react'
import type { TranslationKey } from '~/lib/i18n'
import { CheckEmail } from './check-email'
import { ResendForm } from './resend-code'

/**
 * An account page once its email went (ADR 083): `CheckEmail` and its "Send … again" after the wait,
 * posted to the page's own action as `intent=resend`. Its own module: the page's first visit loads none of it.
 */
export default function CheckEmailAgain({
  sent,
  label,
  ...checkEmail
}: {
  /** The email this browser had sent: to which address, and the wait before it may go again. */
  sent: { address: string | null; resendIn: number; sentAt: number | null }
  label: TranslationKey
} & Omit<ComponentProps<typeof CheckEmail>, 'address' | 'children'>) {
  return (
    <CheckEmail {...checkEmail} address={sent.address}>
      <ResendForm label={label} resendIn={sent.resendIn} sentAt={sent.sentAt} />
    </CheckEmail>
  )
}
