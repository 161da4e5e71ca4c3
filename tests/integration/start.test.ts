import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { HttpBrowser } from '../support/http-browser'
import { getFreePort, waitFor } from '../../dev/ports'

/**
 * `npm start` as a newcomer meets it: the URL and the demo account come first, and a reset asked
 * for in the portal shows up as a link to the portal's own /action page, which opens the
 * new-password form (not the emulator's JSON page). Ctrl-C stops everything.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** The pids of the processes whose command line holds `text` (none: an empty list). */
function processes(text: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', '--', text], { encoding: 'utf8' }).split('\n').filter(Boolean)
  } catch {
    return []
  }
}

const EMULATOR = '--project demo-auth-portal'

/** The parent of a process, from /proc (null once it is gone). */
function parentOf(pid: string): string | null {
  try {
    // "pid (comm) state ppid …": the command may hold spaces and parentheses, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? null
  } catch {
    return null
  }
}

/** Whether `pid` is `ancestor` or one of its descendants. */
function descends(pid: string, ancestor: number): boolean {
  for (let at: string | null = pid; at && at !== '0'; at = parentOf(at)) if (at === String(ancestor)) return true
  return false
}

const alive = (pid: string) => parentOf(pid) !== null

/**
 * `npm start` as a process manager runs it; `stop` sends a signal to npm's own pid (not its group),
 * and resolves to its exit code.
 */
async function npmStart(env: Record<string, string>) {
  const port = Number(env.PORT ?? (await getFreePort()))
  const child = spawn('npm', ['start', '--silent'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', PORT: String(port), ...env },
  })
  const started = { child, port, output: '' }
  child.stdout.on('data', (c: Buffer) => (started.output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (started.output += c.toString()))
  const exited: Promise<number | null> = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const stop = (signal: NodeJS.Signals = 'SIGINT') => {
    // A start that failed has exited already: its own error is the one to see, not the kill's.
    if (child.exitCode === null) child.kill(signal)
    return exited
  }
  await waitFor('the banner', async () => started.output.includes('Press Ctrl-C to stop.'), 240_000).catch(async (error: Error) => {
    await stop()
    throw new Error(`${error.message}\n${started.output}`)
  })
  return { child, port, stop, get output() { return started.output } }
}

it('prints the URL and the demo account first, then each email as a link to the portal', { timeout: 300_000 }, async () => {
  // A setting of the portal's own is passed on: the sign-in link's flag.
  const start = await npmStart({ FLAG_EMAIL_LINK_SIGN_IN: 'true', SESSION_STORE_PATH: path.join(mkdtempSync(path.join(tmpdir(), 'start-')), 'sessions.sqlite') })
  const { child, port } = start
  /** The emulator this start launched (another run's may be up beside it). */
  let emulators: string[] = []
  let exitCode: number | null = null
  try {
    emulators = processes(EMULATOR).filter((pid) => descends(pid, child.pid!))
    expect(emulators, 'the emulator runs under npm start').not.toEqual([])
    const lines = start.output.split('\n')
    const urlLine = lines.findIndex((l) => l.includes(`Authentication portal: http://localhost:${port}/`))
    const accountLine = lines.findIndex((l) => l.includes('Demo account:          demo@example.com / Demo-Portal-2026'))
    expect(urlLine, start.output).toBeGreaterThanOrEqual(0)
    expect(urlLine, start.output).toBeLessThan(10)
    expect(accountLine, start.output).toBeGreaterThanOrEqual(0)
    expect(accountLine, start.output).toBeLessThan(10)
    expect(start.output).toContain('With an SMS code:      demo-mfa@example.com / Demo-Portal-2026')

    const portal = `http://localhost:${port}`
    const browser = new HttpBrowser(portal)
    expect((await browser.post('/forgot-password', { email: 'demo@example.com' }, '/forgot-password')).status).toBe(303)
    const linkPattern = new RegExp(`Password reset for demo@example\\.com: (${portal}/action\\?\\S+)`)
    await waitFor('the reset link', async () => linkPattern.test(start.output), 10_000)
    const link = linkPattern.exec(start.output)![1]!
    expect(link).toContain('mode=resetPassword')
    expect(link).toContain('oobCode=')

    const guard = await browser.get(link)
    expect(guard.status).toBe(302)
    const hop = await browser.get(guard.headers.get('location')!)
    expect(hop.status).toBe(302)
    const page = await browser.get(hop.headers.get('location')!)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('name="confirmation"')

    // With its flag on, an email sign-in link shows up the same way.
    const signIn = await browser.post('/?index', { email: 'demo@example.com', intent: 'email-link' }, '/')
    expect(signIn.status).toBe(303)
    const signInLink = new RegExp(`Sign-in link for demo@example\\.com: ${portal}/action\\?\\S*mode=signIn`)
    await waitFor('the sign-in link', async () => signInLink.test(start.output), 10_000)
  } finally {
    exitCode = await start.stop()
  }
  // 130: the shell's code for an interrupted command (tsx hands the signal on, then exits with it).
  expect([0, 130]).toContain(exitCode)
  await expect(fetch(`http://localhost:${port}/healthz`)).rejects.toThrow()
  // Nothing left behind: the emulator it started has stopped too.
  expect(emulators.filter(alive)).toEqual([])
})

it('keeps a signed-in session across its own restart', { timeout: 600_000 }, async () => {
  const settings = { SESSION_STORE_PATH: path.join(mkdtempSync(path.join(tmpdir(), 'start-')), 'sessions.sqlite') }
  const first = await npmStart(settings)
  const browser = new HttpBrowser(`http://localhost:${first.port}`)
  try {
    const signIn = await browser.post('/?index', { email: 'demo@example.com', password: 'Demo-Portal-2026' }, '/')
    expect(signIn.status).toBe(303)
    expect((await browser.get('/account')).status).toBe(200)
  } finally {
    // SIGTERM to npm's own pid, as a process manager stops it: everything stops.
    expect([0, 143]).toContain(await first.stop('SIGTERM'))
  }
  await expect(fetch(`http://localhost:${first.port}/healthz`)).rejects.toThrow()
  const second = await npmStart({ ...settings, PORT: String(first.port) })
  try {
    const account = await browser.get('/account')
    expect(account.status, second.output).toBe(200)
    expect(await account.text()).toContain('demo@example.com')
  } finally {
    await second.stop()
  }
})
