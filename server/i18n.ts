import { createInstance, type i18n } from 'i18next'
import { RemixI18Next } from 'remix-i18next/server'
import { DEFAULT_LOCALE, LOCALE_CODES, LOCALE_COOKIE, i18nOptions, isLocale, type Locale } from '~/lib/i18n'
import { readCookie } from './cookies'
import { singleton } from './singleton'

/**
 * Choice order (seed section 4): the `i18n_redirected` cookie, then Accept-Language (q-values),
 * then French. The cookie holds a plain code, as the seed's portal wrote it, so it is read here
 * rather than through a Remix cookie object (which expects base64 JSON).
 */
const detector = new RemixI18Next({
  detection: {
    supportedLanguages: LOCALE_CODES,
    fallbackLanguage: DEFAULT_LOCALE,
    order: ['custom', 'header'],
    findLocale: async (request) => {
      const value = readCookie(request.headers.get('Cookie'), LOCALE_COOKIE)
      return isLocale(value) ? value : null
    },
  },
})

export async function getLocale(request: Request): Promise<Locale> {
  const locale = await detector.getLocale(request)
  return isLocale(locale) ? locale : DEFAULT_LOCALE
}

/** One initialised i18next instance per language for the whole process, shared by requests. */
const instances = singleton('i18n-instances', () => {
  const byLocale = {} as Record<Locale, i18n>
  for (const lng of LOCALE_CODES) {
    const instance = createInstance()
    void instance.init({ ...i18nOptions, lng })
    byLocale[lng] = instance
  }
  return byLocale
})

export function getI18n(locale: Locale): i18n {
  return instances[locale]
}

export function getT(locale: Locale) {
  return instances[locale].t
}
