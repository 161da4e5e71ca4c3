import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { withAddresses } from './address'
import { FormAlert } from './forms'
import { ErrorAlert } from './local-time'

/**
 * A page that says an email is on its way (ADR 075): the flow's neutral sentence, the address as
 * typed (whether or not it has an account: the words are the same), where else to look, then
 * `children`, the way to send it again, with the limit's message when it came too soon.
 */
export function CheckEmail({
  message,
  address,
  retryAt,
  ownAddress = false,
  children,
}: {
  message: string
  address: string | null
  /** The signed-in account's own address, not one typed: "Sent to: …". */
  ownAddress?: boolean
  retryAt?: number | null
  children?: ReactNode
}) {
  const { t } = useTranslation()
  return (
    <>
      <FormAlert tone="success">{message}</FormAlert>
      {/* Typed by the visitor: kept out of Session Replay (ADR 030). */}
      {address ? <p data-personal>{withAddresses(t(ownAddress ? 'checkEmail.sentToAccount' : 'checkEmail.sentTo', { email: address }), [address])}</p> : null}
      <p>{t('checkEmail.spam')}</p>
      {retryAt ? <ErrorAlert message="error.tooManyRequestsAt" at={retryAt} /> : null}
      {address ? children : null}
    </>
  )
}
