import { createInstance } from 'i18next'
import { describe, expect, it } from 'vitest'
import { createBrowserI18n } from './i18n-browser'
import { LOCALE_CODES, i18nOptions, resources } from './i18n'
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
    for (const key of keys(resources[lng].common)) {
      expect(translate(lng, key, VALUES), key).toBe(i18next.t(key as 'brand.name', VALUES))
      expect(translate(lng, key), key).toBe(i18next.t(key as 'brand.name'))
    }
    expect(translate(lng, 'no.such.key')).toBe(i18next.t('no.such.key' as 'brand.name'))
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
