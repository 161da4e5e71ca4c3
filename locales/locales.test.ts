import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'
import en from './en/common.json'
import fr from './fr/common.json'

function keys(node: unknown, prefix = ''): string[] {
  if (typeof node !== 'object' || node === null) return [prefix]
  return Object.entries(node).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k))
}

function valueAt(node: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((n, part) => (n as Record<string, unknown>)?.[part], node)
}

describe('translations', () => {
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

  it('are the only visible text in components (no literal strings in JSX)', async () => {
    const eslint = new ESLint()
    const results = await eslint.lintFiles(['app/**/*.tsx'])
    const literals = results.flatMap((r) =>
      r.messages.filter((m) => m.ruleId === 'react/jsx-no-literals').map((m) => `${r.filePath}:${m.line}`),
    )
    expect(results.length).toBeGreaterThan(5)
    expect(literals).toEqual([])
  })
})
