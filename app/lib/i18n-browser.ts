import type { i18n } from 'i18next'
import { isAccountPath, isLocale, type Locale, type Strings } from './i18n'
import { knowStrings, knowsStrings, translate } from './translator'

/**
 * Each language's strings files, served as static files with hashed names: the page preloads its
 * own language's (app/root.tsx), the browser fetches another when the visitor switches (ADR 044).
 * `account` holds the account area's strings, fetched on its pages alone (ADR 068); `public` those
 * of the signed-out pages that send an email or act on one, fetched on those pages alone (ADR 075).
 */
const STRINGS = import.meta.glob<string>('../../locales/*/*.json', { query: '?url', import: 'default', eager: true })
type Part = 'common' | 'account' | 'public'

export function stringsUrl(locale: Locale, part: Part = 'common'): string | undefined {
  return STRINGS[`../../locales/${locale}/${part}.json`]
}

/** The files a page at `pathname` needs. */
export const partsFor = (pathname: string): Part[] =>
  isAccountPath(pathname) ? ['common', 'account'] : PUBLIC_PAGES.has(pathname) ? ['common', 'public'] : ['common']
const PUBLIC_PAGES = new Set(['/forgot-password', '/action'])

const loading = new Map<string, Promise<void>>()

/** Makes sure the translator knows `locale`'s strings for a page at `pathname`, fetching each file once. */
export function loadStrings(locale: Locale, pathname: string): Promise<void> {
  return Promise.all(partsFor(pathname).map((part) => loadPart(locale, part))).then(() => undefined)
}

function loadPart(locale: Locale, part: Part): Promise<void> {
  const url = stringsUrl(locale, part)
  if (knowsStrings(locale, part) || !url) return Promise.resolve()
  let load = loading.get(url)
  if (!load) {
    load = fetch(url).then(async (res) => {
      if (!res.ok) throw new Error(`the ${locale} strings answered ${res.status}`)
      knowStrings(locale, part, (await res.json()) as Partial<Strings>)
    })
    // A failed fetch may be tried again.
    load.catch(() => loading.delete(url))
    loading.set(url, load)
  }
  return load
}

/** An account page's `clientLoader`: its strings before its data, when the visitor comes from another page. */
export async function withAccountStrings({ serverLoader }: { serverLoader: () => Promise<unknown> }) {
  await loadStrings(currentLocale, '/account')
  return serverLoader()
}
/** The same for the pages of `public`. */
export async function withPublicStrings({
  serverLoader,
  request,
}: {
  serverLoader: () => Promise<unknown>
  request: Request
}) {
  await loadStrings(currentLocale, new URL(request.url).pathname)
  return serverLoader()
}
let currentLocale: Locale = 'fr'

/**
 * The browser's i18n instance for react-i18next: the few members its hooks use (useTranslation,
 * and changeLanguage for app/root.tsx), over `translate`. Saves i18next's 13 KB (gzip) in the
 * first-visit JavaScript (ADR 012). The server renders with real i18next instances.
 */
export function createBrowserI18n(initial: Locale): i18n {
  let language: Locale = initial
  currentLocale = initial
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
        await loadStrings(next, globalThis.location?.pathname ?? '/')
        language = next
        currentLocale = next
        for (const listener of listeners) listener(next)
      }
      return t
    },
  }
  return instance as unknown as i18n
}
