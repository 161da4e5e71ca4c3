import type { MetaDescriptor } from 'react-router'
import { DEFAULT_LOCALE, isLocale, type Locale } from './i18n'
import { brandName } from './brand'
import { translate } from './translator'

type Matches = ReadonlyArray<{ id: string; loaderData: unknown } | undefined>

function rootLocale(matches: Matches): Locale | null {
  const data = matches.find((m) => m?.id === 'root')?.loaderData as { locale?: unknown } | undefined
  return isLocale(data?.locale) ? data.locale : null
}

export function localeOf(matches: Matches): Locale {
  return rootLocale(matches) ?? DEFAULT_LOCALE
}

/**
 * Whether the root loader ran. It does not when a form post fails before it (a 400, 403, 405 or
 * 413 page of a route without its own error boundary): the page's language is then only known while
 * rendering, so the layout writes the title itself (`titleText`).
 */
export function rootLoaded(matches: Matches): boolean {
  return rootLocale(matches) !== null
}

/** A page's title: its own words, then the brand's name (BRAND_NAME). */
export function titleText(locale: Locale, key: string): string {
  return `${translate(locale, key)} · ${brandName(locale)}`
}

/** A page's title and description in the page's language. */
export function pageTitle(matches: Matches, key: string, extra: MetaDescriptor[] = []): MetaDescriptor[] {
  const locale = localeOf(matches)
  return [
    { title: titleText(locale, key) },
    { name: 'description', content: translate(locale, 'meta.description') },
    ...extra,
  ]
}

/** For the pages an emailed link or a sign-in step leads to: no search engine keeps them. */
export const NOT_INDEXED: MetaDescriptor[] = [{ name: 'robots', content: 'noindex, nofollow' }]
