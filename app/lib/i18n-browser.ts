import type { i18n } from 'i18next'
import { isAccountPath, isLocale, type Locale, type Strings } from './i18n'
import { knowStrings, knowsStrings, translate } from './translator'

// `account` holds the account area's strings, fetched on its pages alone (see ADR 068); `public`
// those of the signed-out pages that send an email or act on one, fetched on those pages alone;
// `sent` those of a page saying an email went, fetched in that state alone (ADR 083).
const STRINGS = import.meta.glob<string>('../../locales/*/*.json', { query: '?url', import: 'default', eager: true })
type Part = 'common' | 'account' | 'public' | 'sent'

export function stringsUrl(locale: Locale, part: Part = 'common'): string | undefined {
  return STRINGS[`../../locales/${locale}/${part}.json`]
}

/** The strings files a page needs, from its path and query: `sent` once it says an email went (ADR 083). */
export function partsFor(pathname: string, search = ''): Part[] {
  const parts: Part[] = isAccountPath(pathname) ? ['common', 'account'] : PUBLIC_PAGES.has(pathname) ? ['common', 'public'] : ['common']
  if (/sent=1|=sent/.test(search)) parts.push('sent')
  return parts
}
const PUBLIC_PAGES = new Set(['/forgot-password', '/action'])

/** A part of a page loaded as it shows (`/`'s "link sent"), with the strings it needs. */
export const withSentStrings = <T,>(load: Promise<T>): Promise<T> => Promise.all([load, loadPart(currentLocale, 'sent')]).then(([part]) => part)

const loading = new Map<string, Promise<void>>()

export function loadStrings(locale: Locale, pathname: string, search?: string): Promise<void> {
  return Promise.all(partsFor(pathname, search).map((part) => loadPart(locale, part))).then(() => undefined)
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

/** A page's clientLoader: coming from another page, its strings (`partsFor`) load before its data (ADR 068). */
export async function withPageStrings<Data>({ serverLoader, request }: { serverLoader: () => Promise<Data>; request: Request }): Promise<Data> {
  const url = new URL(request.url)
  await loadStrings(currentLocale, url.pathname, url.search)
  return serverLoader()
}
let currentLocale: Locale = 'fr'

// Only the few members react-i18next's hooks use, over `translate`:
// saves i18next's 13 KB gzip on a first visit (see ADR 012).
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
        await loadStrings(next, globalThis.location?.pathname ?? '/', globalThis.location?.search)
        language = next
        currentLocale = next
        for (const listener of listeners) listener(next)
      }
      return t
    },
  }
  return instance as unknown as i18n
}
