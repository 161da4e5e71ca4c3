import type { Locale, Messages, TranslationKey } from './i18n'

/**
 * The strings of the languages this process has: both on the server (app/.server/i18n.ts); in the
 * browser only the page's own, which the server writes into the page (`<PageMessages>`), and the
 * other once the visitor switches (loadMessages). A first visit so ships one language, as data.
 */
const loaded: Partial<Record<Locale, Messages>> = {}

export function addMessages(locale: Locale, messages: Messages): void {
  loaded[locale] = messages
}

export function messagesOf(locale: Locale): Messages | undefined {
  return loaded[locale]
}

/** Fetches a language's strings in the browser (a chunk of their own), before switching to it. */
export async function loadMessages(locale: Locale): Promise<void> {
  if (loaded[locale]) return
  const { default: messages } = (await import(`../../locales/${locale}/common.json`)) as { default: Messages }
  addMessages(locale, messages)
}

function lookup(messages: unknown, key: string): unknown {
  let node = messages
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
  const node = lookup(loaded[locale], key)
  if (typeof node !== 'string') return key
  return node.replace(/{{\s*(\w+)\s*}}/g, (placeholder, name: string) =>
    values[name] === undefined ? placeholder : String(values[name]),
  )
}

/** Whether a string is a key of the locale files (any loaded language: they have the same keys). */
export function isTranslationKey(value: string): value is TranslationKey {
  return Object.values(loaded).some((messages) => typeof lookup(messages, value) === 'string')
}
