import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SETTINGS_DOC, settingsDoc, settingsOf } from '../../scripts/settings-doc'
import { SETTINGS } from './config-schema'

describe('the settings reference, docs/settings.md', () => {
  it('describes every setting in the schema', () => {
    const bare = settingsOf(SETTINGS).flatMap(([name, schema]) => (schema.description?.trim() ? [] : [name]))
    expect(bare, 'declare each with from() and its description in app/.server/config-schema.ts, then run `npm run settings-doc`').toEqual([])
  })

  it('is what `npm run settings-doc` writes from the schema now', () => {
    expect(readFileSync(SETTINGS_DOC, 'utf8'), 'docs/settings.md is stale: run `npm run settings-doc`').toBe(settingsDoc())
  })
})
