/**
 * `npm start`: the embedded default. Builds when the sources are newer than the build, starts
 * the Firebase Auth emulator with a demo project, creates a demo account, serves the production
 * build against it, and prints where and how to sign in, then each email and SMS code the emulator
 * "sends" (as the portal's own link). Ctrl-C stops everything.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { parseConfig } from '../app/.server/config'
import { SETTINGS } from '../app/.server/config-schema'
import { settingsOf } from './settings-doc'
import { emulatorAdmin, startEmulator } from '../dev/emulator'
import { getFreePort } from '../dev/ports'
import { SERVER_ENTRY, startPortal } from '../dev/portal'
import { watchOutbox } from '../dev/outbox'

const DEMO_EMAIL = 'demo@example.com'
const DEMO_PASSWORD = 'Demo-Portal-2026'
/** A second account with an SMS second factor: its codes show up below the banner. */
const MFA_EMAIL = 'demo-mfa@example.com'
const MFA_PHONE = '+15555550100'
const SOURCES = ['app', 'server', 'locales', 'public', 'vite.config.ts', 'react-router.config.ts', 'package-lock.json']

/** The variables of this environment that the portal reads (docs/settings.md). */
function portalSettingsFrom(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(settingsOf(SETTINGS).flatMap(([name]) => (env[name] ? [[name, env[name]]] : [])))
}

function newestMtime(entry: string): number {
  if (!existsSync(entry)) return 0
  const stat = statSync(entry)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(0, ...readdirSync(entry).map((name) => newestMtime(path.join(entry, name))))
}

// The settings are checked before anything starts: a wrong one is one line (as `npm run serve` says it), not an emulator's start-up.
const checked = parseConfig({ ...portalSettingsFrom(process.env), PLATFORM: 'local' })
if (!checked.ok) {
  for (const problem of checked.errors) console.error(`Invalid configuration: ${problem}`)
  process.exit(1)
}

if (!existsSync(SERVER_ENTRY) || Math.max(...SOURCES.map(newestMtime)) > statSync(SERVER_ENTRY).mtimeMs) {
  console.log('Building the portal…')
  // Quiet: Vite's chunk table is for whoever works on the bundle; it is shown only when the build fails.
  const build = spawnSync('npm', ['run', 'build', '--silent'], { encoding: 'utf8' })
  if (build.status !== 0) {
    process.stdout.write(`${build.stdout}${build.stderr}`)
    process.exit(build.status ?? 1)
  }
}

// The sessions, and the emulator's accounts they belong to, are kept in one folder across restarts.
const sessionStorePath = process.env.SESSION_STORE_PATH ?? '.data/sessions.sqlite'
const emulator = await startEmulator({ projectId: 'demo-auth-portal', dataDir: path.join(path.dirname(sessionStorePath), 'emulator') })
const stopAll = async (code: number) => {
  await portal?.stop().catch(() => undefined)
  await emulator.stop().catch(() => undefined)
  process.exit(code)
}
let portal: Awaited<ReturnType<typeof startPortal>> | undefined
/** The portal's log is shown once the banner is out, so that the URL and the account come first. */
let ready = false
try {
  const admin = emulatorAdmin(emulator)
  // A restart finds the demo accounts kept from the last run (with what was done to them since).
  if (!(await admin.localIdOf(DEMO_EMAIL))) await admin.createUser(DEMO_EMAIL, DEMO_PASSWORD)
  if (!(await admin.localIdOf(MFA_EMAIL))) {
    const { localId } = await admin.createUser(MFA_EMAIL, DEMO_PASSWORD)
    await admin.enrollSms(localId, [{ phoneNumber: MFA_PHONE, displayName: 'Demo phone' }])
  }
  const port = process.env.PORT ?? String(await portFree(3000) ? 3000 : await getFreePort())
  portal = await startPortal({
    // The portal's own settings from this shell (e.g. FLAG_EMAIL_LINK_SIGN_IN=true npm start), under the embedded default's.
    ...portalSettingsFrom(process.env),
    PLATFORM: 'local',
    SESSION_STORE_PATH: sessionStorePath,
    // Warnings and errors only, so that the emails and codes stand out; LOG_LEVEL=info shows every request.
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    FIREBASE_AUTH_EMULATOR_HOST: emulator.host,
    FIREBASE_PROJECT_ID: emulator.projectId,
    PORT: port,
  }, { echo: () => ready })
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  await stopAll(1)
}

console.log(`
  Authentication portal: ${portal!.url}/
  Demo account:          ${DEMO_EMAIL} / ${DEMO_PASSWORD}
  With an SMS code:      ${MFA_EMAIL} / ${DEMO_PASSWORD} (phone ${MFA_PHONE})
  Emails and SMS codes:  shown below as they are "sent", as links to this portal
  Kept across restarts:  the accounts and sessions, in ${path.dirname(sessionStorePath)}/ (delete it to start afresh)
  Press Ctrl-C to stop.
`)
ready = true
watchOutbox(emulator, portal!.url, (line) => console.log(`\n  ${line}\n`))

// Ctrl-C reaches this process twice (from the terminal and from tsx): every signal after the first is
// ignored, so that the emulator and the portal are always stopped before the exit.
let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  void stopAll(0)
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)

async function portFree(port: number): Promise<boolean> {
  const net = await import('node:net')
  return new Promise((resolve) => {
    const server = net.createServer().once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}
