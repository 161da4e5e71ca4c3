import type { i18n } from 'i18next'
import { isLocale, type Locale, type Strings } from './i18n'
import { knowStrings, knowsStrings, translate } from './translator'

/**
 * Each language's strings file, served as a static file with a hashed name: the page preloads its
 * own language's (app/root.tsx), the browser fetches another when the visitor switches (ADR 044).
 */
const STRINGS = import.meta.glob<string>('../../locales/*/common.json', { query: '?url', import: 'default', eager: true })

export function stringsUrl(locale: Locale): string | undefined {
  return STRINGS[`../../locales/${locale}/common.json`]
}

const loading = new Map<Locale, Promise<void>>()

/** Makes sure the translator knows `locale`'s strings, fetching them once. */
export function loadStrings(locale: Locale): Promise<void> {
  const url = stringsUrl(locale)
  if (knowsStrings(locale) || !url) return Promise.resolve()
  let load = loading.get(locale)
  if (!load) {
    load = fetch(url).then(async (res) => {
      if (!res.ok) throw new Error(`the ${locale} strings answered ${res.status}`)
      knowStrings(locale, (await res.json()) as Strings)
    })
    // A failed fetch may be tried again.
    load.catch(() => loading.delete(locale))
    loading.set(locale, load)
  }
  return load
}

/**
 * The browser's i18n instance for react-i18next: the few members its hooks use (useTranslation,
 * and changeLanguage for app/root.tsx), over `translate`. Saves i18next's 13 KB (gzip) in the
 * first-visit JavaScript (ADR 012). The server renders with real i18next instances.
 */
export function createBrowserI18n(initial: Locale): i18n {
  let language: Locale = initial
  const listeners = new Set<(lng: string) => void>()
  const t = (key: string | string[], options?: Record<string, unknown>) =>
    translate(language, Array.isArray(key) ? (key[0] ?? '') : key, options)
  const instance = {
    get language() {
      return language
    },
    get languages() {
      return [language]
    },
    isInitialized: true,
    options: { defaultNS: 'common', react: { bindI18n: 'languageChanged', bindI18nStore: '', useSuspense: false } },
    hasLoadedNamespace: () => true,
    // A new function each time, as i18next does: react-i18next re-renders when its identity changes.
    getFixedT: () => (key: string | string[], options?: Record<string, unknown>) => t(key, options),
    t,
    on(event: string, listener: (lng: string) => void) {
      if (event === 'languageChanged') listeners.add(listener)
    },
    off(_event: string, listener: (lng: string) => void) {
      listeners.delete(listener)
    },
    store: { on() {}, off() {} },
    async changeLanguage(next: string) {
      if (isLocale(next) && next !== language) {
        await loadStrings(next)
        language = next
        for (const listener of listeners) listener(next)
      }
      return t
    },
  }
  return instance as unknown as i18n
}
