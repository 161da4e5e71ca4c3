import { resources, type Locale } from './i18n'

/**
 * The lookup every page needs: a dotted key in one language, with `{{name}}` placeholders filled.
 * That is all the portal asks of i18next, so the browser uses this instead of shipping i18next
 * (ADR 012); app/lib/translator.test.ts checks it answers exactly as i18next does for every key.
 */
export function translate(locale: Locale, key: string, values: Record<string, unknown> = {}): string {
  let node: unknown = resources[locale].common
  for (const part of key.split('.')) node = (node as Record<string, unknown> | undefined)?.[part]
  if (typeof node !== 'string') return key
  return node.replace(/{{\s*(\w+)\s*}}/g, (placeholder, name: string) =>
    values[name] === undefined ? placeholder : String(values[name]),
  )
}
