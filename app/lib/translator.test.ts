import { createInstance } from 'i18next'
import { describe, expect, it } from 'vitest'
import { createBrowserI18n } from './i18n-browser'
import { LOCALE_CODES } from './i18n'
import { i18nOptions, resources } from './strings'
import { translate } from './translator'

function keys(node: unknown, prefix = ''): string[] {
  if (typeof node !== 'object' || node === null) return [prefix]
  return Object.entries(node).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k))
}

const VALUES = { count: 12, user: 'a@example.com', email: 'b@example.com', name: 'English', url: 'https://x.example/' }

describe('the browser translator', () => {
  it.each(LOCALE_CODES)('answers exactly as i18next does for every key in %s (so hydration matches)', async (lng) => {
    const i18next = createInstance()
    await i18next.init({ ...i18nOptions, lng })
    // Any string, as the browser translator takes: i18next's own answer is the reference.
    const t = i18next.t.bind(i18next) as (key: string, values?: object) => string
    for (const key of keys(resources[lng].common)) {
      expect(translate(lng, key, VALUES), key).toBe(t(key, VALUES))
      expect(translate(lng, key), key).toBe(t(key))
    }
    expect(translate(lng, 'no.such.key')).toBe(t('no.such.key'))
  })

  it('changes language in place and tells react-i18next', async () => {
    const i18n = createBrowserI18n('fr')
    const seen: string[] = []
    i18n.on('languageChanged', (lng: string) => seen.push(lng))
    expect(i18n.t('signIn.title')).toBe('Connexion')
    await i18n.changeLanguage('en')
    expect(i18n.language).toBe('en')
    expect(i18n.getFixedT(null, 'common')('signIn.title')).toBe('Sign In')
    expect(seen).toEqual(['en'])
  })
})
