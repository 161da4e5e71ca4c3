import type { MetaDescriptor } from 'react-router'
import { DEFAULT_LOCALE, isLocale, type Locale } from './i18n'
import { brandName } from './brand'
import { translate } from './translator'

type Matches = ReadonlyArray<{ id: string; loaderData: unknown } | undefined>

function rootLocale(matches: Matches): Locale | null {
  const data = matches.find((m) => m?.id === 'root')?.loaderData as { locale?: unknown } | undefined
  return isLocale(data?.locale) ? data.locale : null
}

// It does not run when a form post fails before it (a 400, 403, 405 or 413 page of
// a route without its own error boundary): the layout then writes the title itself.
export function rootLoaded(matches: Matches): boolean {
  return rootLocale(matches) !== null
}

export function titleText(locale: Locale, key: string): string {
  return `${translate(locale, key)} · ${brandName(locale)}`
}

export function pageTitle(matches: Matches, key: string, extra: MetaDescriptor[] = []): MetaDescriptor[] {
  const locale = rootLocale(matches) ?? DEFAULT_LOCALE
  return [
    { title: titleText(locale, key) },
    { name: 'description', content: translate(locale, 'meta.description') },
    ...extra,
  ]
}

export const NOT_INDEXED: MetaDescriptor[] = [{ name: 'robots', content: 'noindex, nofollow' }]
