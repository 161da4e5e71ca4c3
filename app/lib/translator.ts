import type { Locale, Strings, TranslationKey } from './i18n'

/**
 * The strings of each language the translator knows. The server knows both. A browser knows only
 * its page's language (app/lib/i18n-browser.ts fetches it, and another one when the visitor
 * switches): the import below is in server code alone, so a first visit downloads one language's
 * strings, not both (ADR 044).
 */
const known: Partial<Record<Locale, Partial<Strings>>> = {}
/** Which files of each language are known ('common', 'account', 'public'). */
const parts = new Set<string>()
if (import.meta.env.SSR) {
  const { resources } = await import('./strings')
  for (const [locale, { common }] of Object.entries(resources)) {
    known[locale as Locale] = common
    parts.add(`${locale}/common`).add(`${locale}/account`).add(`${locale}/public`)
  }
}

/** Adds one file's strings (its groups are its own: no group is in two files). */
export function knowStrings(locale: Locale, part: string, strings: Partial<Strings>) {
  known[locale] = { ...known[locale], ...strings }
  parts.add(`${locale}/${part}`)
}

export function knowsStrings(locale: Locale, part = 'common'): boolean {
  return parts.has(`${locale}/${part}`)
}

function lookup(locale: Locale, key: string): unknown {
  let node: unknown = known[locale]
  for (const part of key.split('.')) {
    node = node !== null && typeof node === 'object' && Object.hasOwn(node, part) ? (node as Record<string, unknown>)[part] : undefined
  }
  return node
}

/**
 * The lookup every page needs: a dotted key in one language, with `{{name}}` placeholders filled.
 * That is all the portal asks of i18next, so the browser uses this instead of shipping i18next
 * (ADR 012); app/lib/translator.test.ts checks it answers exactly as i18next does for every key.
 */
export function translate(locale: Locale, key: string, values: Record<string, unknown> = {}): string {
  const text = lookup(locale, key)
  if (typeof text !== 'string') return key
  return text.replace(/{{\s*(\w+)\s*}}/g, (placeholder, name: string) =>
    values[name] === undefined ? placeholder : String(values[name]),
  )
}

/** Whether a string is a key of the English file (the French one has the same keys); on the server. */
export function isTranslationKey(value: string): value is TranslationKey {
  return typeof lookup('en', value) === 'string'
}
