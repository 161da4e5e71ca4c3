import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SHELL_MODULES, SHELL_PAGE_INPUTS } from './page-shells'

/** The names a module imports from server code (`~/.server/…`, or its own `./<page>.server`), type-only imports aside. */
function serverImports(file: string): string[] {
  const source = readFileSync(file, 'utf8')
  const names: string[] = []
  for (const [, list] of source.matchAll(/import\s+\{([^}]*)\}\s+from\s+'(?:~\/\.server\/[^']+|\.\/[^']+\.server)'/g)) {
    for (const part of list!.split(',')) {
      const name = part.trim()
      if (name && !name.startsWith('type ')) names.push(name.split(/\s+as\s+/)[0]!)
    }
  }
  return names
}

describe('the page-shell key (ADR 021)', () => {
  const imported = new Set(SHELL_MODULES.flatMap(serverImports))

  it('reads the imports of the shell pages', () => {
    expect(imported.has('getLocale')).toBe(true)
    expect(imported.size).toBeGreaterThan(5)
  })

  it('knows why a shell may ignore everything those pages read', () => {
    const unexplained = [...imported].filter((name) => !(name in SHELL_PAGE_INPUTS))
    expect(unexplained, 'add each to SHELL_PAGE_INPUTS: in the key (keyOf), or why a shell never depends on it').toEqual([])
  })

  it('names nothing the pages no longer import', () => {
    expect(Object.keys(SHELL_PAGE_INPUTS).filter((name) => !imported.has(name))).toEqual([])
  })
})
