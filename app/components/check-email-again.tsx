import type { TranslationKey } from '~/lib/i18n'
import { CheckEmail } from './check-email'
import { ResendForm } from './resend-code'

/**
 * An account page once its email went (ADR 083): `CheckEmail` and its "Send … again" after the wait,
 * posted to the page's own action as `intent=resend`. Its own module: the page's first visit loads none of it.
 */
export default function CheckEmailAgain({
  message,
  sent,
  ownAddress,
  retryAt,
  label,
}: {
  message: string
  /** The email this browser had sent: to which address, and the wait before it may go again. */
  sent: { address: string | null; resendIn: number; sentAt: number | null }
  ownAddress?: boolean
  retryAt?: number | null
  label: TranslationKey
}) {
  return (
    <CheckEmail message={message} address={sent.address} ownAddress={ownAddress} retryAt={retryAt}>
      <ResendForm label={label} resendIn={sent.resendIn} sentAt={sent.sentAt} />
    </CheckEmail>
  )
}
