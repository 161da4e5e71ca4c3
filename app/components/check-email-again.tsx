import type { TranslationKey } from '~/lib/i18n'
import { CheckEmail } from './check-email'
import { ResendForm } from './resend-code'

/**
 * An account page once its email went (ADR 083): `CheckEmail` and its "Send … again" after the wait,
 * posted to the page's own action as `intent=resend`. Its own module: the page's first visit loads none of it.
 */
export default function CheckEmailAgain({
  message,
  address,
  ownAddress,
  retryAt,
  resendIn,
  sentAt,
  label,
}: {
  message: string
  address: string | null
  ownAddress?: boolean
  retryAt?: number | null
  resendIn: number
  sentAt: number | null
  label: TranslationKey
}) {
  return (
    <CheckEmail message={message} address={address} ownAddress={ownAddress} retryAt={retryAt}>
      <ResendForm label={label} resendIn={resendIn} sentAt={sentAt} />
    </CheckEmail>
  )
}
