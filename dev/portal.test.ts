import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SERVER_ENV, SERVER_NODE_ARGS } from './portal'

const read = (file: string) => readFileSync(`${import.meta.dirname}/../${file}`, 'utf8')

describe('the memory settings (ADR 064)', () => {
  it('are the same in the image, in `npm run serve` and for the portals the tests and the bench start', () => {
    const { NODE_OPTIONS, MALLOC_ARENA_MAX } = SERVER_ENV
    const serve = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.serve
    expect(read('Dockerfile')).toMatch(`\nENV NODE_OPTIONS="${NODE_OPTIONS}" MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX}\n`)
    expect(serve).toContain(`MALLOC_ARENA_MAX=\${MALLOC_ARENA_MAX:-${MALLOC_ARENA_MAX}} `)
    expect(serve).toContain(`NODE_OPTIONS=\${NODE_OPTIONS:-${NODE_OPTIONS}} `)
    expect(read('Dockerfile')).toMatch(`\nCMD ${JSON.stringify(['node', ...SERVER_NODE_ARGS, 'build/http/main.js'])}\n`.replaceAll(',', ', '))
    expect(serve).toMatch(new RegExp(` node ${SERVER_NODE_ARGS.join(' ')} build/http/main\\.js$`))
  })
})
