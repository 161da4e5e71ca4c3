import type { Locale, Strings, TranslationKey } from './i18n'

// The import of both languages is in server code alone, so a
// first visit downloads one language's strings (see ADR 044).
const known: Partial<Record<Locale, Partial<Strings>>> = {}
const parts = new Set<string>()
if (import.meta.env.SSR) {
  const { resources } = await import('./strings')
  for (const [locale, { common }] of Object.entries(resources)) {
    known[locale as Locale] = common
    parts.add(`${locale}/common`).add(`${locale}/account`).add(`${locale}/public`).add(`${locale}/sent`)
  }
}

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

// All the portal asks of i18next, so the browser ships this instead (see ADR 012).
// translator.test.ts checks it answers as i18next does for every key.
export function translate(locale: Locale, key: string, values: Record<string, unknown> = {}): string {
  const text = lookup(locale, key)
  if (typeof text !== 'string') return key
  return text.replace(/{{\s*(\w+)\s*}}/g, (placeholder, name: string) =>
    values[name] === undefined ? placeholder : String(values[name]),
  )
}

export function isTranslationKey(value: string): value is TranslationKey {
  return typeof lookup('en', value) === 'string'
}
