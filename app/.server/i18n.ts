import { createInstance, type i18n } from 'i18next'
import { DEFAULT_LOCALE, LOCALE_CODES, isLocale, type Locale } from '~/lib/i18n'
import { i18nOptions } from '~/lib/strings'
import { COOKIES, getCookie } from './cookies'

// remix-i18next's header detection keeps only the single best language,
// supported or not, so `de, en;q=0.8` would fall back to French (see ADR 004).
export function getLocale(request: Request): Locale {
  const cookie = getCookie(request, COOKIES.locale)
  if (isLocale(cookie)) return cookie
  return localeFromAcceptLanguage(request.headers.get('Accept-Language')) ?? DEFAULT_LOCALE
}

export function localeFromAcceptLanguage(header: string | null): Locale | null {
  if (!header) return null
  const ranges = header
    .slice(0, 1024)
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';')
      const q = params.map((p) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find(Boolean)
      return { language: tag.trim().toLowerCase().split('-')[0] ?? '', q: q === undefined ? 1 : Number(q), index }
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
  return ranges.map((r) => r.language).find(isLocale) ?? null
}

const instances = {} as Record<Locale, i18n>
for (const lng of LOCALE_CODES) {
  instances[lng] = createInstance()
  void instances[lng].init({ ...i18nOptions, lng })
}

export function getI18n(locale: Locale): i18n {
  return instances[locale]
}

export function getT(locale: Locale) {
  return instances[locale].t
}
