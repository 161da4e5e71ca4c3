/**
 * `npm test`: typecheck, lint, build, unit tests, integration tests (vitest), browser tests (Playwright),
 * one after the other, then the time each part took.
 * Every step runs even when one fails; the last line sums all suites: `N passed, N failed`.
 * Typecheck and lint count as one check each, so a failure there can never read "0 failed".
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startEmulator } from '../dev/emulator'
import { ensurePrerequisites } from '../dev/prerequisites'

ensurePrerequisites(process.argv.includes('--install-prerequisites'))
const out = mkdtempSync(path.join(tmpdir(), 'portal-test-'))
// The Node every step runs on: the project's own (ADR 033), which npm puts first on PATH.
console.log(`Node.js ${process.version} (${process.execPath})`)
const startedAt = Date.now()
const totals = { passed: 0, failed: 0, skipped: 0 }
const times: [string, number][] = []
/** What failed, by name, listed again above the last line: a long log's tail names it. */
const failures: string[] = []

/**
 * Runs one part and resolves true when it passed. Its output goes straight to ours, or, for a part
 * that runs beside others (`buffered`), in one piece when it ends.
 */
function run(name: string, command: string, args: string[], env: Record<string, string> = {}, buffered = false) {
  console.log(`\n▶ ${name}: ${command} ${args.join(' ')}`)
  const started = Date.now()
  const child = spawn(command, args, { stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: { ...process.env, ...env } })
  const output: Buffer[] = []
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk))
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk))
  return new Promise<boolean>((resolve) => {
    child.once('close', (code) => {
      const ok = code === 0
      const seconds = (Date.now() - started) / 1000
      times.push([name, seconds])
      if (buffered) process.stdout.write(Buffer.concat(output))
      console.log(`${ok ? '✔' : '✘'} ${name} (${seconds.toFixed(1)} s)`)
      resolve(ok)
    })
  })
}

async function check(name: string, command: string, args: string[]) {
  if (await run(name, command, args, {}, true)) totals.passed += 1
  else {
    totals.failed += 1
    failures.push(name)
  }
}

function readJson<T>(file: string): T | null {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : null
}

/** One vitest project (vitest.config.ts): unit tests start nothing, integration tests start the emulator. */
async function vitestProject(project: 'unit' | 'integration', env: Record<string, string> = {}) {
  const json = path.join(out, `vitest-${project}.json`)
  const ok = await run(`${project} tests`, 'npx', [
    'vitest', 'run', `--project=${project}`, '--reporter=default', '--reporter=json', `--outputFile.json=${json}`,
  ], env)
  const vitest = readJson<{
    numPassedTests: number
    numFailedTests: number
    numPendingTests: number
    numTodoTests: number
    testResults: { name: string; assertionResults: { fullName: string; status: string }[] }[]
  }>(json)
  if (vitest) {
    for (const file of vitest.testResults)
      for (const test of file.assertionResults)
        if (test.status === 'failed') failures.push(`${path.relative('.', file.name)} > ${test.fullName}`)
    totals.passed += vitest.numPassedTests
    totals.failed += vitest.numFailedTests
    totals.skipped += vitest.numPendingTests + vitest.numTodoTests
  }
  if (!ok && (!vitest || vitest.numFailedTests === 0)) {
    totals.failed += 1 // a suite that crashed
    failures.push(`${project} tests (crashed)`)
  }
}

interface PlaywrightSuite {
  title: string
  specs?: { title: string; tests: { projectName: string; status: string }[] }[]
  suites?: PlaywrightSuite[]
}

/** The browser tests that failed, or passed only on a retry, by file, title and project. */
function playwrightFailures(suite: PlaywrightSuite, titles: string[] = []): string[] {
  const here = [...titles, suite.title].filter(Boolean)
  return [
    ...(suite.specs ?? []).flatMap((spec) =>
      spec.tests
        .filter((test) => test.status === 'unexpected' || test.status === 'flaky')
        .map((test) => `${[...here, spec.title].join(' > ')} [${test.projectName}]${test.status === 'flaky' ? ' (flaky)' : ''}`),
    ),
    ...(suite.suites ?? []).flatMap((child) => playwrightFailures(child, here)),
  ]
}

async function browserTests(env: Record<string, string>) {
  const json = path.join(out, 'playwright.json')
  const ok = await run('browser tests', 'npx', ['playwright', 'test'], { ...env, PLAYWRIGHT_JSON_OUTPUT_NAME: json })
  const playwright = readJson<{
    stats: { expected: number; unexpected: number; flaky: number; skipped: number }
    suites: PlaywrightSuite[]
  }>(json)
  if (playwright) {
    failures.push(...playwright.suites.flatMap((suite) => playwrightFailures(suite)))
    totals.passed += playwright.stats.expected + playwright.stats.flaky
    totals.failed += playwright.stats.unexpected
    totals.skipped += playwright.stats.skipped
  }
  if (!ok && (!playwright || playwright.stats.unexpected === 0)) {
    totals.failed += 1
    failures.push('browser tests (crashed)')
  }
}

// The test parts one after the other: each keeps both cores busy, so side by side they only took turns
// and ran into each other's time-outs (ADR 046). Typecheck, lint and build run on one core each and
// have no time-outs: they go side by side.
// One Auth emulator for the integration and browser tests (dev/emulator.ts testEmulator), started
// while the checks run: each suite started its own, 7 s each.
const emulator = startEmulator()
emulator.catch(() => {})
// It runs in a process group of its own: Ctrl-C stops it here.
process.once('SIGINT', () => void emulator.then((started) => started.stop()).finally(() => process.exit(130)))
await Promise.all([
  check('typecheck', 'npm', ['run', 'typecheck', '--silent']),
  check('lint', 'npx', ['eslint', '--max-warnings', '0', '.']),
  check('build', 'npm', ['run', 'build', '--silent']),
])
await vitestProject('unit')
const shared = await emulator.then(
  ({ origin, projectId }) => ({ TEST_EMULATOR_ORIGIN: origin, TEST_EMULATOR_PROJECT_ID: projectId }),
  (error: Error) => {
    console.log(`The shared emulator did not start (${error.message}): each suite starts its own.`)
    return {}
  },
)
await vitestProject('integration', shared)
await browserTests(shared)
await emulator.then((started) => started.stop()).catch(() => {})

rmSync(out, { recursive: true, force: true })
console.log('\nTime per part:')
for (const [name, seconds] of times) console.log(`  ${name.padEnd(28)} ${seconds.toFixed(1).padStart(6)} s`)
console.log(`  ${'total'.padEnd(28)} ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)} s`)
if (failures.length) console.log(`\n${failures.map((name) => `✘ failed: ${name}`).join('\n')}`)
const skipped = totals.skipped ? `, ${totals.skipped} skipped` : ''
console.log(`\n${totals.passed} passed, ${totals.failed} failed${skipped}`)
process.exit(totals.failed === 0 ? 0 : 1)
