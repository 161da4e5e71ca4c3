/**
 * `npm run size`: what a first visit downloads, gzipped, per page, against the budgets in
 * tests/support/page-size.ts, with error reporting off and on (SENTRY_DSN set, as in production);
 * the chunks loaded later; oversized images and external fonts; and the production install
 * (`npm ci --omit=dev` in a clean folder, and as the image installs it). Builds first so the
 * figures are those of the current sources. Exit code 1 when a budget is exceeded.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { startEmulator, type Emulator } from '../dev/emulator'
import { BUDGETS, budgetProblems, kb, measurePages, staticFiles, type PageSize } from '../tests/support/page-size'
import { startPortal, type Portal } from '../dev/portal'

// The build's own chatter (Rollup warnings) only matters when it fails.
const build = spawnSync('npm', ['run', 'build', '--silent'], { encoding: 'utf8' })
if (build.status !== 0) {
  console.error(`npm run build failed:\n${build.stdout}${build.stderr}`)
  process.exit(1)
}

let emulator: Emulator | undefined
let portal: Portal | undefined
let pages: PageSize[] = []
let reported: PageSize[] = []
try {
  emulator = await startEmulator()
  // FLAG_SIGN_UP: /sign-up is one of the pages measured.
  const env = { LOG_LEVEL: 'warn', FIREBASE_AUTH_EMULATOR_HOST: emulator.host, FIREBASE_PROJECT_ID: emulator.projectId, FLAG_SIGN_UP: 'true' }
  portal = await startPortal(env)
  pages = await measurePages(portal.url)
  await portal.stop()
  // Nothing listens there: a first visit sends no report.
  portal = await startPortal({ ...env, SENTRY_DSN: 'http://publickey@127.0.0.1:9/1' })
  reported = await measurePages(portal.url)
} finally {
  await portal?.stop()
  await emulator?.stop()
}

const pad = (s: string | number, n: number) => String(s).padStart(n)
console.log(`Gzip (level 9) per page, first visit, 1 KB = 1024 B. Budgets: HTML < ${kb(BUDGETS.html)}, CSS < ${kb(BUDGETS.css)}, JS < ${kb(BUDGETS.js)} KB.\n`)
console.log(`${'page'.padEnd(18)}${'reporting'.padEnd(10)}${pad('status', 7)}${pad('HTML', 8)}${pad('CSS', 8)}${pad('JS', 8)}${pad('JS files', 10)}`)
for (const p of [...pages, ...reported]) {
  console.log(
    `${p.path.padEnd(18)}${(p.reporting ? 'on' : 'off').padEnd(10)}${pad(p.status, 7)}${pad(kb(p.total.html), 8)}${pad(kb(p.total.css), 8)}${pad(kb(p.total.js), 8)}${pad(p.js.length, 10)}`,
  )
}

// The chunks behind the JS total, largest first: where trimming pays.
const chunks = new Map(pages.flatMap((p) => p.js).map((r) => [path.basename(new URL(r.url).pathname), r]))
const pagesUsing = (name: string) => pages.filter((p) => p.js.some((r) => r.url.endsWith(`/${name}`))).length
console.log(`\nJavaScript chunks (raw → gzip KB, pages loading it of ${pages.length}):`)
for (const [name, r] of [...chunks].sort((a, b) => b[1].gzip - a[1].gzip)) {
  console.log(`  ${name.padEnd(34)}${pad(kb(r.bytes), 7)} →${pad(kb(r.gzip), 6)}   ${pagesUsing(name)}`)
}

// Loaded after the page is interactive, only when reporting is on (ADR 030): the reporter and Session Replay.
console.log('\nLoaded once the page is idle, with reporting on (raw → gzip KB):')
const assets = path.resolve('build/client/assets')
for (const name of readdirSync(assets).filter((f) => /^sentry[\w.-]*\.js$/.test(f))) {
  const body = readFileSync(path.join(assets, name))
  console.log(`  ${name.padEnd(34)}${pad(kb(body.length), 7)} →${pad(kb(gzipSync(body, { level: 9 }).length), 6)}`)
}

const files = staticFiles()
console.log(`\nStatic files (public/ and images in build/client/assets), raw KB, budget < ${kb(BUDGETS.file)} each:`)
for (const f of files) console.log(`  ${f.file.padEnd(52)}${pad(kb(f.bytes), 6)}`)
const fonts = pages.flatMap((p) => p.externalFonts)
console.log(`\nExternal font URLs in HTML/CSS: ${fonts.length ? fonts.join(', ') : 'none'}`)

console.log('\nProduction install, in a clean folder from package.json and package-lock.json (1 MB = 1024² B):')
for (const omit of [['dev'], ['dev', 'optional']]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'portal-install-'))
  try {
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) copyFileSync(file, path.join(dir, file))
    const flags = omit.map((o) => `--omit=${o}`)
    const install = spawnSync('npm', ['ci', ...flags, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, encoding: 'utf8' })
    if (install.status !== 0) throw new Error(`npm ci ${flags.join(' ')} failed:\n${install.stderr}`)
    const du = spawnSync('du', ['-sk', 'node_modules'], { cwd: dir, encoding: 'utf8' })
    const packages = readdirSync(path.join(dir, 'node_modules'), { recursive: true }).filter((f) => String(f).endsWith('package.json')).length
    console.log(`  npm ci ${flags.join(' ').padEnd(30)}${pad((Number.parseInt(du.stdout, 10) / 1024).toFixed(0), 5)} MB (${packages} package.json files)`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const problems = budgetProblems([...pages, ...reported], files)
console.log(problems.length ? `\nFAIL\n${problems.map((p) => `  ${p}`).join('\n')}` : '\nPASS: every budget met')
process.exit(problems.length ? 1 : 0)
