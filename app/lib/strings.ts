import en from '../../locales/en/common.json'
import enAccount from '../../locales/en/account.json'
import fr from '../../locales/fr/common.json'
import frAccount from '../../locales/fr/account.json'
import enPublic from '../../locales/en/public.json'
import frPublic from '../../locales/fr/public.json'
import enSent from '../../locales/en/sent.json'
import frSent from '../../locales/fr/sent.json'
import { DEFAULT_LOCALE, LOCALE_CODES } from './i18n'

/** Only the server imports this module: a browser fetches its page's language alone (see ADR 044). */
export const resources = {
  en: { common: { ...en, ...enAccount, ...enPublic, ...enSent } },
  fr: { common: { ...fr, ...frAccount, ...frPublic, ...frSent } },
}

export const i18nOptions = {
  supportedLngs: LOCALE_CODES,
  fallbackLng: DEFAULT_LOCALE,
  defaultNS: 'common',
  ns: ['common'],
  resources,
  // React escapes what it renders.
  interpolation: { escapeValue: false },
  initImmediate: false,
} as const
