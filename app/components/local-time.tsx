import { useEffect, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import type { TranslationKey } from '~/lib/i18n'
import { FormAlert } from './forms'

const MARK = '\u0000'

// Each language's own short time: "00:08" in French, "12:08 AM" in English.
export const clock = (at: number, language: string, timeZone?: string) =>
  new Intl.DateTimeFormat(language, { timeStyle: 'short', timeZone }).format(at)

/**
 * A time of day in the page's language: in UTC, said so, as the server renders it (it knows no
 * time zone), and in the visitor's own time zone once the page's script runs.
 */
export function LocalTime({ at }: { at: number }) {
  const { i18n } = useTranslation()
  const [local, setLocal] = useState(false)
  useEffect(() => setLocal(true), [])
  const text = local ? clock(at, i18n.language) : `${clock(at, i18n.language, 'UTC')} UTC`
  return <time dateTime={new Date(at).toISOString()}>{text}</time>
}

/**
 * A form's error message (FormAlert), with `children` after it; nothing without one. With `at`, its
 * sentence has that time in place of `{{time}}` ("You can try again at 18:05"), as a limit says when it lets go.
 */
export function ErrorAlert({
  message,
  at,
  children,
}: {
  message: TranslationKey | null | undefined
  at?: number | null
  children?: ReactNode
}) {
  const { t } = useTranslation()
  if (!message) return null
  const [before, after] = at ? t(message, { time: MARK }).split(MARK) : [t(message)]
  return (
    <FormAlert>
      {before}
      {at ? <LocalTime at={at} /> : null}
      {after}
      {children}
    </FormAlert>
  )
}
