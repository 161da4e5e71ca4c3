import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

/**
 * A comment says the fact itself or points to a file of this repository (an ADR, a module): never
 * to a specification section or an issue, which a reader of the code cannot open.
 */
const OUTSIDE = /\bseed(?:[- ](?:spec|sections?|\d)|'s)\b|\bissues? #?\d+/i

const files = execFileSync('git', ['ls-files', 'app', 'dev', 'scripts', 'server', 'tests', 'deploy'], {
  cwd: `${import.meta.dirname}/..`,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => /\.(?:[cm]?[jt]sx?|css|ya?ml|conf|sh)$/.test(file))

describe('comments', () => {
  it('name no document outside the repository', () => {
    expect(files.length).toBeGreaterThan(100)
    const outside = files.flatMap((file) =>
      readFileSync(`${import.meta.dirname}/../${file}`, 'utf8')
        .split('\n')
        .flatMap((line, i) => (OUTSIDE.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    )
    expect(outside).toEqual([])
  })
})
