import { resolve } from 'node:path'
import Backend from 'i18next-fs-backend'
import { createI18nextMiddleware } from 'remix-i18next'
import i18n from './i18n'

/** The portal's own translation files (server.js says where), read by the fs backend. */
export const loadPath = resolve(process.env.LOCALES_DIR ?? 'locales', '{{lng}}/{{ns}}.json')

export const [i18nextMiddleware, getLocale, getInstance] = createI18nextMiddleware({
  detection: { supportedLanguages: i18n.supportedLngs, fallbackLanguage: i18n.fallbackLng },
  i18next: { ...i18n, ns: [i18n.defaultNS], backend: { loadPath } },
  plugins: [Backend],
})
