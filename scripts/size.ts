/**
 * `npm run size`: what a first visit downloads, gzipped, per page, against the budgets in
 * tests/support/page-size.ts; also oversized images and external fonts. Builds first so the
 * figures are those of the current sources. Exit code 1 when a budget is exceeded.
 */
import { spawnSync } from 'node:child_process'
import path from 'node:path'
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
try {
  emulator = await startEmulator()
  portal = await startPortal({ LOG_LEVEL: 'warn', FIREBASE_AUTH_EMULATOR_HOST: emulator.host, FIREBASE_PROJECT_ID: emulator.projectId })
  pages = await measurePages(portal.url)
} finally {
  await portal?.stop()
  await emulator?.stop()
}

const pad = (s: string | number, n: number) => String(s).padStart(n)
console.log(`Gzip (level 9) per page, first visit, 1 KB = 1024 B. Budgets: HTML < ${kb(BUDGETS.html)}, CSS < ${kb(BUDGETS.css)}, JS < ${kb(BUDGETS.js)} KB.\n`)
console.log(`${'page'.padEnd(18)}${pad('status', 7)}${pad('HTML', 8)}${pad('CSS', 8)}${pad('JS', 8)}${pad('JS files', 10)}`)
for (const p of pages) {
  console.log(`${p.path.padEnd(18)}${pad(p.status, 7)}${pad(kb(p.total.html), 8)}${pad(kb(p.total.css), 8)}${pad(kb(p.total.js), 8)}${pad(p.js.length, 10)}`)
}

// The chunks behind the JS total, largest first: where trimming pays.
const chunks = new Map(pages.flatMap((p) => p.js).map((r) => [path.basename(new URL(r.url).pathname), r]))
const pagesUsing = (name: string) => pages.filter((p) => p.js.some((r) => r.url.endsWith(`/${name}`))).length
console.log(`\nJavaScript chunks (raw → gzip KB, pages loading it of ${pages.length}):`)
for (const [name, r] of [...chunks].sort((a, b) => b[1].gzip - a[1].gzip)) {
  console.log(`  ${name.padEnd(34)}${pad(kb(r.bytes), 7)} →${pad(kb(r.gzip), 6)}   ${pagesUsing(name)}`)
}

const files = staticFiles()
console.log(`\nStatic files (public/ and images in build/client/assets), raw KB, budget < ${kb(BUDGETS.file)} each:`)
for (const f of files) console.log(`  ${f.file.padEnd(52)}${pad(kb(f.bytes), 6)}`)
const fonts = pages.flatMap((p) => p.externalFonts)
console.log(`\nExternal font URLs in HTML/CSS: ${fonts.length ? fonts.join(', ') : 'none'}`)

const problems = budgetProblems(pages, files)
console.log(problems.length ? `\nFAIL\n${problems.map((p) => `  ${p}`).join('\n')}` : '\nPASS: every budget met')
process.exit(problems.length ? 1 : 0)
