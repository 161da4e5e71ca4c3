import type { MetaDescriptor } from 'react-router'
import { DEFAULT_LOCALE, isLocale, type Locale } from './i18n'
import { translate } from './translator'

type Matches = ReadonlyArray<{ id: string; loaderData: unknown } | undefined>

export function localeOf(matches: Matches): Locale {
  const data = matches.find((m) => m?.id === 'root')?.loaderData as { locale?: unknown } | undefined
  return isLocale(data?.locale) ? data.locale : DEFAULT_LOCALE
}

/** A page's title and description in the page's language. */
export function pageTitle(matches: Matches, key: string, extra: MetaDescriptor[] = []): MetaDescriptor[] {
  const locale = localeOf(matches)
  return [
    { title: `${translate(locale, key)} · ${translate(locale, 'brand.name')}` },
    { name: 'description', content: translate(locale, 'meta.description') },
    ...extra,
  ]
}

/** For the pages an emailed link or a sign-in step leads to: no search engine keeps them. */
export const NOT_INDEXED: MetaDescriptor[] = [{ name: 'robots', content: 'noindex, nofollow' }]
