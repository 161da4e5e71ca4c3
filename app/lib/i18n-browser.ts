import type { i18n } from 'i18next'
import { isLocale, type Locale } from './i18n'
import { translate } from './translator'

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
        language = next
        for (const listener of listeners) listener(next)
      }
      return t
    },
  }
  return instance as unknown as i18n
}
