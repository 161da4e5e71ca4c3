import { describe, expect, it } from 'vitest'
import enCommon from './en/common.json'
import enAccount from './en/account.json'
import frCommon from './fr/common.json'
import frAccount from './fr/account.json'
import enPublic from './en/public.json'
import frPublic from './fr/public.json'

// Two files per language, whose groups never overlap: a browser merges them (app/lib/translator.ts).
const en = { ...enCommon, ...enAccount, ...enPublic }
const fr = { ...frCommon, ...frAccount, ...frPublic }

function keys(node: unknown, prefix = ''): string[] {
  if (typeof node !== 'object' || node === null) return [prefix]
  return Object.entries(node).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k))
}

function valueAt(node: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((n, part) => (n as Record<string, unknown>)?.[part], node)
}

describe('translations', () => {
  it('keep each group in one file of the two', () => {
    const files = [enCommon, enAccount, enPublic]
    const shared = files.flatMap((a, i) =>
      files.slice(i + 1).flatMap((b) => Object.keys(a).filter((group) => group in b)),
    )
    expect(shared).toEqual([])
    expect(Object.keys(frAccount)).toEqual(Object.keys(enAccount))
    expect(Object.keys(frPublic)).toEqual(Object.keys(enPublic))
  })

  it('have the same keys in English and French', () => {
    expect(keys(fr).sort()).toEqual(keys(en).sort())
  })

  it('have a real French translation for every sentence', () => {
    // Proper names and single symbols may coincide; sentences may not.
    const same = keys(en).filter((k) => valueAt(en, k) === valueAt(fr, k) && String(valueAt(en, k)).includes(' '))
    expect(same).toEqual([])
  })

  it('use the same placeholders in both languages', () => {
    for (const key of keys(en)) {
      const placeholders = (text: unknown) => [...String(text).matchAll(/{{(\w+)}}/g)].map((m) => m[1]).sort()
      expect(placeholders(valueAt(fr, key)), key).toEqual(placeholders(valueAt(en, key)))
    }
  })

  describe('French typography (docs/decisions/035-french-typography.md)', () => {
    const french = keys(fr).map((key) => [key, String(valueAt(fr, key))] as const)
    /** `? ! ;` as punctuation: at the end, or before a space or a closing mark (not `!@#` in a list of symbols). */
    const HIGH_PUNCTUATION = /(\s?)([?!;])(?=$|[\s).,»…])/gu

    it('puts a narrow no-break space (U+202F) before ? ! ;', () => {
      const wrong = french.flatMap(([key, text]) =>
        [...text.matchAll(HIGH_PUNCTUATION)]
          .filter((m) => m[1] !== '\u202f')
          .map((m) => `${key}: ${JSON.stringify(m[0])}`),
      )
      expect(wrong).toEqual([])
    })

    it('puts a no-break space (U+00A0) before a colon and inside « »', () => {
      const wrong = french.flatMap(([key, text]) =>
        [
          ...[...text.matchAll(/(\s?):(?=$|\s)/gu)].filter((m) => m[1] !== '\u00a0').map((m) => m[0]),
          ...[...text.matchAll(/«(\s?)/gu)].filter((m) => m[1] !== '\u00a0').map((m) => m[0]),
          ...[...text.matchAll(/(\s?)»/gu)].filter((m) => m[1] !== '\u00a0').map((m) => m[0]),
        ].map((found) => `${key}: ${JSON.stringify(found)}`),
      )
      expect(wrong).toEqual([])
    })

    it('has no word that breaks at its hyphen: "courriel", not "e-mail"', () => {
      expect(french.filter(([, text]) => /e-mail/i.test(text)).map(([key]) => key)).toEqual([])
    })

    it('addresses the visitor without a masculine-only participle ("connecté")', () => {
      // Lookarounds, not \b: in a JavaScript pattern \b sees "é" as no letter.
      const gendered = /(?<!\p{L})(vous êtes \p{L}+é|(dé)?connecté)(?!\p{L})/iu
      expect(french.filter(([, text]) => gendered.test(text)).map(([key]) => key)).toEqual([])
    })

    it('uses typographic apostrophes and no ASCII quotes', () => {
      expect(french.filter(([, text]) => /['"]/.test(text)).map(([key]) => key)).toEqual([])
    })
  })

  describe('English spelling and punctuation (the seed’s strings, spelled right)', () => {
    const english = keys(en).map((key) => [key, String(valueAt(en, key))] as const)

    it('spells "occurred" with two r’s, as in "An unexpected error occurred"', () => {
      expect(english.filter(([, text]) => /occured/i.test(text)).map(([key]) => key)).toEqual([])
      expect(en.error.unexpected).toBe('An unexpected error occurred')
    })

    it('puts no space before ? ! : ;, as in "Your password has been modified successfully!"', () => {
      expect(english.filter(([, text]) => /\s[?!:;](?=$|\s)/u.test(text)).map(([key]) => key)).toEqual([])
      expect(en.newPassword.success).toBe('Your password has been modified successfully!')
    })
  })

  it('word the way back to sign-in one way per language, the seed’s in English', () => {
    const ways = (locale: typeof en) => [
      locale.forgotPassword.back,
      locale.logout.backToSignIn,
      locale.error.backToSignIn,
      locale.mfa.back,
    ]
    expect(new Set(ways(en))).toEqual(new Set(['Back to login page']))
    expect(new Set(ways(fr)).size).toBe(1)
  })
})
