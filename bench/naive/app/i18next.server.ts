import { resolve } from 'node:path'
import Backend from 'i18next-fs-backend'
import { RemixI18Next } from 'remix-i18next/server'
import i18n from './i18n'

/** The portal's own translation files (server.js says where), read by the fs backend. */
export const loadPath = resolve(process.env.LOCALES_DIR ?? 'locales', '{{lng}}/{{ns}}.json')

const i18next = new RemixI18Next({
  detection: { supportedLanguages: i18n.supportedLngs, fallbackLanguage: i18n.fallbackLng },
  i18next: { ...i18n, backend: { loadPath } },
  plugins: [Backend],
})

export default i18next
