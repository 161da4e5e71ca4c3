/**
 * `npm test`: typecheck, lint, build, unit + integration (vitest), browser (Playwright).
 * Every step runs even when one fails; the last line sums all suites: `N passed, N failed`.
 * Typecheck and lint count as one check each, so a failure there can never read "0 failed".
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

const out = mkdtempSync(path.join(tmpdir(), 'portal-test-'))
// The Node every step runs on: the project's own (ADR 033), which npm puts first on PATH.
console.log(`Node.js ${process.version} (${process.execPath})`)
const totals = { passed: 0, failed: 0, skipped: 0 }

function run(name: string, command: string, args: string[], env: Record<string, string> = {}): boolean {
  console.log(`\n▶ ${name}: ${command} ${args.join(' ')}`)
  const started = Date.now()
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } })
  const ok = result.status === 0
  console.log(`${ok ? '✔' : '✘'} ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
  return ok
}

function check(name: string, command: string, args: string[]) {
  if (run(name, command, args)) totals.passed += 1
  else totals.failed += 1
}

function readJson<T>(file: string): T | null {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : null
}

check('typecheck', 'npx', ['tsc', '--noEmit'])
check('lint', 'npx', ['eslint', '--max-warnings', '0', '.'])
check('build', 'npm', ['run', 'build', '--silent'])

const vitestJson = path.join(out, 'vitest.json')
const vitestOk = run('unit and integration tests', 'npx', [
  'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`,
])
const vitest = readJson<{ numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number }>(vitestJson)
if (vitest) {
  totals.passed += vitest.numPassedTests
  totals.failed += vitest.numFailedTests
  totals.skipped += vitest.numPendingTests + vitest.numTodoTests
}
if (!vitestOk && (!vitest || vitest.numFailedTests === 0)) totals.failed += 1 // a suite that crashed

const playwrightJson = path.join(out, 'playwright.json')
const playwrightOk = run('browser tests', 'npx', ['playwright', 'test'], { PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightJson })
const playwright = readJson<{ stats: { expected: number; unexpected: number; flaky: number; skipped: number } }>(playwrightJson)
if (playwright) {
  totals.passed += playwright.stats.expected + playwright.stats.flaky
  totals.failed += playwright.stats.unexpected
  totals.skipped += playwright.stats.skipped
}
if (!playwrightOk && (!playwright || playwright.stats.unexpected === 0)) totals.failed += 1

rmSync(out, { recursive: true, force: true })
const skipped = totals.skipped ? `, ${totals.skipped} skipped` : ''
console.log(`\n${totals.passed} passed, ${totals.failed} failed${skipped}`)
process.exit(totals.failed === 0 ? 0 : 1)
