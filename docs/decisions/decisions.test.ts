import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'

const dir = import.meta.dirname

it('the index lists every decision record, and only those', () => {
  const records = readdirSync(dir).filter((file) => /^\d{3}-.+\.md$/.test(file)).sort()
  const listed = [...readFileSync(path.join(dir, 'README.md'), 'utf8').matchAll(/^\| \[\d{3}\]\((\d{3}-[^)]+\.md)\)/gm)].map((m) => m[1]).sort()
  expect(listed).toEqual(records)
})
