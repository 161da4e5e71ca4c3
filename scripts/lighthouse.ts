/**
 * `npm run lighthouse`: Lighthouse 12 (its CLI, pinned: later versions need Node 22) with Debian's
 * Chromium against the production build, offline, on the sign-in page, the reset request page and
 * a valid new-password page, mobile and desktop. Prints each run's scores and failing audits, then
 * one table (`--runs=N`: the medians of N runs) with PASS/FAIL against the targets; a miss still exits 0
 * (figures, not a test). Exit 1 only when a run cannot be made. The portal is measured bare, as it
 * serves: its assets precompressed, its pages not (ADR 045).
 * No audit is skipped: is-on-https passes on http://localhost (a secure context), and Lighthouse 12
 * has no redirects-http audit any more.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { EMULATOR_API_KEY, emulatorAdmin, startEmulator, uniqueEmail, type Emulator } from '../dev/emulator'
import { getFreePort, waitFor } from '../dev/ports'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const LIGHTHOUSE_CLI = path.join(root, 'node_modules/lighthouse/cli/index.js')
const CHROME_PATH = '/usr/bin/chromium'
// Headless and quiet: no sandbox (containers), no GPU, and nothing that phones home, so it runs offline.
const CHROME_FLAGS = [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run',
]
const CATEGORIES = ['performance', 'accessibility', 'best-practices'] as const
const TARGETS: Record<(typeof CATEGORIES)[number], number> = { performance: 95, accessibility: 100, 'best-practices': 100 }
const PRESETS = ['mobile', 'desktop'] as const

/** The part of a Lighthouse result (LHR) read here. */
interface Audit {
  id: string
  title: string
  score: number | null
  scoreDisplayMode: string
  displayValue?: string
  numericValue?: number
  errorMessage?: string
  details?: { items?: Array<Record<string, unknown>> }
}
interface LighthouseResult {
  categories: Record<string, { score: number | null }>
  audits: Record<string, Audit>
  runWarnings: string[]
}

let emulator: Emulator | undefined
let portal: { url: string; stop(): Promise<void> } | undefined
let running: ChildProcess | undefined
const workDir = mkdtempSync(path.join(tmpdir(), 'portal-lighthouse-'))
// Under the project so the build's bare imports still resolve from its node_modules.
const snapshotDir = path.join(root, 'node_modules/.cache', `portal-lighthouse-${process.pid}`)

async function cleanup() {
  // SIGINT lets the CLI's chrome-launcher close Chromium before it exits.
  running?.kill('SIGINT')
  await portal?.stop().catch(() => undefined)
  await emulator?.stop().catch(() => undefined)
  rmSync(workDir, { recursive: true, force: true })
  rmSync(snapshotDir, { recursive: true, force: true })
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanup().then(() => process.exit(130)))

function lighthouse(url: string, preset: (typeof PRESETS)[number], headers: Record<string, string>): Promise<LighthouseResult> {
  const output = path.join(workDir, 'report.json')
  const args = [
    LIGHTHOUSE_CLI, url, '--quiet', '--output=json', `--output-path=${output}`,
    `--only-categories=${CATEGORIES.join(',')}`, `--chrome-flags=${CHROME_FLAGS.join(' ')}`,
    // The full-page screenshot only feeds the HTML report; skipping it saves time.
    '--disable-full-page-screenshot',
    ...(preset === 'desktop' ? ['--preset=desktop'] : []),
    ...(Object.keys(headers).length ? [`--extra-headers=${JSON.stringify(headers)}`] : []),
  ]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, CHROME_PATH }, stdio: ['ignore', 'ignore', 'pipe'] })
    running = child
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.once('exit', (code) => {
      running = undefined
      if (code !== 0) return reject(new Error(`lighthouse ${url} (${preset}) exited with ${code}:\n${stderr}`))
      resolve(JSON.parse(readFileSync(output, 'utf8')) as LighthouseResult)
    })
  })
}

/**
 * Builds and copies build/ aside. Others rebuild build/ while the audits run (a minute or more),
 * and a portal whose chunks are replaced under it answers 404s that Lighthouse would blame on us.
 */
function buildSnapshot(): string {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, encoding: 'utf8' })
    if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`)
    rmSync(snapshotDir, { recursive: true, force: true })
    try {
      cpSync(path.join(root, 'build'), snapshotDir, { recursive: true })
    } catch {
      continue
    }
    // Whole only if every asset the server build names came along: another build may have been half-way.
    const server = path.join(snapshotDir, 'server/index.js')
    const assets = existsSync(server) ? (readFileSync(server, 'utf8').match(/\/assets\/[\w.-]+\.(?:js|css|json)\b/g) ?? []) : []
    // (The server build's own chunks, such as an emptied `.client` module, sit beside it in server/assets.)
    const copied = (asset: string) => ['client', 'server'].some((dir) => existsSync(path.join(snapshotDir, dir, asset)))
    const whole = assets.length > 0 && assets.every(copied)
    if (whole && existsSync(path.join(snapshotDir, 'http/main.js'))) return path.join(snapshotDir, 'http/main.js')
  }
  throw new Error('build/ kept changing while being copied (another build running?); try again')
}

/** startPortal's environment, on the snapshot instead of build/. */
async function startSnapshotPortal(entry: string, env: Record<string, string>) {
  const port = await getFreePort()
  const child = spawn(process.execPath, [entry], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', PLATFORM: 'test', HOST: '127.0.0.1', PUBLIC_URL: `http://localhost:${port}`, ...env, PORT: String(port) },
  })
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    await exited
    clearTimeout(timer)
  }
  portal = { url: `http://localhost:${port}`, stop }
  await waitFor('the portal', async () => {
    if (child.exitCode !== null) throw new Error(`the portal exited with ${child.exitCode}:\n${output}`)
    return (await fetch(`${portal!.url}/healthz`)).ok
  }, 30_000)
  return portal
}

/** A few words on where an audit fails: the first URLs, elements or issue types it lists. */
function hints(audit: Audit): string {
  const items = audit.details?.items ?? []
  const words = items.slice(0, 3).map((item) => {
    const node = item.node as { snippet?: string } | undefined
    const value = item.url ?? node?.snippet ?? item.issueType ?? item.description ?? item.label
    return typeof value === 'string' ? value.replace(/\s+/g, ' ').slice(0, 90) : ''
  }).filter(Boolean)
  return words.length ? ` — ${words.join(' | ')}${items.length > 3 ? ` (+${items.length - 3})` : ''}` : ''
}

/** A valid reset link: ask the emulator for a code, then let the portal move it into its cookie. */
async function resetCookie(): Promise<string> {
  const email = uniqueEmail('lighthouse')
  await emulatorAdmin(emulator!).createUser(email, 'Lighthouse-Portal-2026')
  const res = await fetch(`${emulator!.origin}/identitytoolkit.googleapis.com/v1/accounts:sendOobCode?key=${EMULATOR_API_KEY}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ requestType: 'PASSWORD_RESET', email }),
  })
  if (!res.ok) throw new Error(`sendOobCode answered ${res.status}: ${await res.text()}`)
  const code = (await emulatorAdmin(emulator!).oobCodes()).find((c) => c.email === email && c.requestType === 'PASSWORD_RESET')
  if (!code) throw new Error(`no reset code for ${email}`)
  const link = await fetch(`${portal!.url}/new-password?oobCode=${encodeURIComponent(code.oobCode)}`, { redirect: 'manual' })
  const cookie = link.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ')
  // Check the page really is the form (200), not the invalid-link page (400), before auditing it.
  const page = await fetch(`${portal!.url}/new-password`, { headers: { Cookie: cookie } })
  if (link.status !== 302 || page.status !== 200) throw new Error(`the reset link gave ${link.status} then ${page.status}`)
  return cookie
}

/** `--runs N` (default 1): each page and preset is measured N times and the table gives the medians. */
function runsAsked(): number {
  const arg = process.argv.find((a) => a.startsWith('--runs='))?.slice('--runs='.length)
  const runs = Number(arg ?? 1)
  if (!Number.isInteger(runs) || runs < 1 || runs > 9) throw new Error(`--runs takes a whole number from 1 to 9, not ${arg}`)
  return runs
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** The 1-minute load average beside the core count: how much the figures were competed for. */
function load(): string {
  return `load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`
}

const HEADINGS = ['page', 'preset', 'perf', 'a11y', 'best pr.', 'FCP', 'LCP', 'targets']

/** A plain-text table, columns padded to their widest cell. */
function table(rows: string[][]): string {
  const lines = [HEADINGS, ...rows]
  const widths = HEADINGS.map((_, i) => Math.max(...lines.map((cells) => cells[i]!.length)))
  return lines.map((cells) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n')
}

try {
  console.log('Building…')
  const entry = buildSnapshot()
  emulator = await startEmulator()
  portal = await startSnapshotPortal(entry, { LOG_LEVEL: 'warn', FIREBASE_AUTH_EMULATOR_HOST: emulator.host, FIREBASE_PROJECT_ID: emulator.projectId })

  // The reset cookie goes in as an extra header rather than through the redirect, so the audited
  // load is the page itself: a followed redirect would count against performance and is not what
  // a visitor who already followed the link sees on reload.
  const pages: Array<{ name: string; path: string; headers: Record<string, string> }> = [
    { name: '/', path: '/', headers: {} },
    { name: '/forgot-password', path: '/forgot-password', headers: {} },
    { name: '/new-password (valid)', path: '/new-password', headers: { Cookie: await resetCookie() } },
  ]
  const runs = runsAsked()
  console.log(`Lighthouse 12.2.3, ${CHROME_PATH}, simulated throttling, portal ${portal.url}, ${runs} run(s) each; ${load()}`)
  const rows: Array<{ page: string; preset: string; scores: number[]; fcp: number; lcp: number }> = []
  for (const preset of PRESETS) {
    for (const page of pages) {
      const results: Array<{ scores: number[]; fcp: number; lcp: number }> = []
      for (let run = 1; run <= runs; run++) {
        const lhr = await lighthouse(`${portal.url}${page.path}`, preset, page.headers)
        const scores = CATEGORIES.map((c) => Math.round((lhr.categories[c]?.score ?? 0) * 100))
        const ms = (id: string) => lhr.audits[id]?.numericValue ?? NaN
        results.push({ scores, fcp: ms('first-contentful-paint'), lcp: ms('largest-contentful-paint') })
        // The document's status shows the audited page is the one meant (the reset form answers 200, a dead link 400).
        const doc = lhr.audits['network-requests']?.details?.items?.find((r) => r.resourceType === 'Document')
        console.log(`\n${page.name} [${preset}] run ${run}: HTTP ${String(doc?.statusCode ?? '?')}  ${CATEGORIES.map((c, i) => `${c} ${scores[i]}`).join('  ')}  (${load()})`)
        const metrics = ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift', 'speed-index']
        console.log(`  ${metrics.map((id) => `${id.replace(/-/g, ' ')} ${lhr.audits[id]?.displayValue ?? '?'}`).join(', ')}`)
        for (const audit of Object.values(lhr.audits)) {
          if (audit.score === null || audit.score >= 1 || ['informative', 'manual', 'notApplicable'].includes(audit.scoreDisplayMode)) continue
          console.log(`  - ${audit.id} (${audit.score}) ${audit.displayValue ?? audit.title}${hints(audit)}`)
        }
        // Gatherers that fail on this Chromium: listed once, as their audits are simply missing.
        const broken = Object.values(lhr.audits).filter((a) => a.scoreDisplayMode === 'error')
        if (broken.length) console.log(`  ! could not run: ${broken.map((a) => a.id).join(', ')} (${broken[0]!.errorMessage?.replace(/^.*?: /, '')})`)
        for (const warning of lhr.runWarnings) console.log(`  ! ${warning}`)
      }
      rows.push({
        page: page.name,
        preset,
        scores: CATEGORIES.map((_, i) => median(results.map((r) => r.scores[i]!))),
        fcp: median(results.map((r) => r.fcp)),
        lcp: median(results.map((r) => r.lcp)),
      })
    }
  }
  console.log(`\n${runs > 1 ? `Medians of ${runs} runs` : 'Figures'} (targets: performance ≥ ${TARGETS.performance}, accessibility and best practices 100):`)
  console.log(table(rows.map((r) => [
    r.page, r.preset, ...r.scores.map(String), `${(r.fcp / 1000).toFixed(1)} s`, `${(r.lcp / 1000).toFixed(1)} s`,
    CATEGORIES.every((c, i) => r.scores[i]! >= TARGETS[c]) ? 'PASS' : 'FAIL',
  ])))
  console.log(load())
  // Other work on the machine (test suites, builds) skews every figure here; say so rather than mislead.
  const [now = 0] = loadavg()
  if (now > availableParallelism()) console.log(`\nWARNING: load average ${now.toFixed(1)} on ${availableParallelism()} cores: other processes competed for the CPU; figures are pessimistic.`)
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
} finally {
  await cleanup()
}
