import type en from '../../locales/en/common.json'
import type enAccount from '../../locales/en/account.json'
import type enPublic from '../../locales/en/public.json'
import type enSent from '../../locales/en/sent.json'

export const LOCALES = [
  { code: 'en', iso: 'en-US', name: 'English' },
  { code: 'fr', iso: 'fr-FR', name: 'Français' },
] as const

export type Locale = (typeof LOCALES)[number]['code']
export const DEFAULT_LOCALE: Locale = 'fr'
export const LOCALE_CODES: Locale[] = LOCALES.map((l) => l.code)
export const LOCALE_COOKIE = 'i18n_redirected'

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALE_CODES as string[]).includes(value)
}

export function isoOf(locale: Locale): string {
  return LOCALES.find((l) => l.code === locale)?.iso ?? 'fr-FR'
}

type KeysOf<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${Prefix}${K}` : KeysOf<T[K], `${Prefix}${K}.`>
}[keyof T & string]

/** A unit test checks the French file has the same keys. */
export type TranslationKey = KeysOf<Strings>

export type Strings = typeof en & typeof enAccount & typeof enPublic & typeof enSent

/** A signed-out page carries none of the account area's strings (see ADR 068). */
export const isAccountPath = (pathname: string) => pathname === '/account' || pathname.startsWith('/account/')
