import type en from '../../locales/en/common.json'
import type enAccount from '../../locales/en/account.json'
import type enPublic from '../../locales/en/public.json'

/** The supported languages: one place for the list, the default and the resources. */
export const LOCALES = [
  { code: 'en', iso: 'en-US', name: 'English' },
  { code: 'fr', iso: 'fr-FR', name: 'Français' },
] as const

export type Locale = (typeof LOCALES)[number]['code']
export const DEFAULT_LOCALE: Locale = 'fr'
export const LOCALE_CODES: Locale[] = LOCALES.map((l) => l.code)
/** The language cookie's name, the one fact about it the browser may need; the rest is in app/.server/cookies.ts. */
export const LOCALE_COOKIE = 'i18n_redirected'

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALE_CODES as string[]).includes(value)
}

export function isoOf(locale: Locale): string {
  return LOCALES.find((l) => l.code === locale)?.iso ?? 'fr-FR'
}

/** The dotted paths to the strings of a locale file: 'error.unexpected', 'errorPage.404.text'… */
type KeysOf<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${Prefix}${K}` : KeysOf<T[K], `${Prefix}${K}.`>
}[keyof T & string]

/**
 * Every translation key, from the English file (app/i18next.d.ts types `t` from the same file, and
 * a unit test checks the French one has the same keys): what a message carried in data is typed as.
 */
export type TranslationKey = KeysOf<Strings>

/** The strings of one language, as its two files hold them. */
export type Strings = typeof en & typeof enAccount & typeof enPublic

/**
 * The account area's strings are a file of their own (locales/*\/account.json), which a browser
 * fetches only on its pages: a signed-out page carries none of them (ADR 068).
 */
export const isAccountPath = (pathname: string) => pathname === '/account' || pathname.startsWith('/account/')
