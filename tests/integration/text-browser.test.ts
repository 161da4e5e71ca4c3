import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { ownPortal } from '../support/portal'

/**
 * Debian's lynx, a no-JavaScript client nobody here wrote, driven by keystrokes as a person
 * would use it: down to the first box, type the address, down, the password, down to the
 * button, Enter. Every box lynx shows must be one a person can fill (ADR 028).
 */
const LYNX = '/usr/bin/lynx'
const emulator = inject('emulator')
const admin = emulatorAdmin(emulator)
const PASSWORD = 'Correct-Horse-42'

const portal = inject('portal')
const signUpPortal = ownPortal({ FLAG_SIGN_UP: 'true' })
let dir: string

beforeAll(async () => {
  try {
    execFileSync(LYNX, ['-version'], { stdio: 'ignore' })
  } catch {
    throw new Error(`${LYNX} is missing: install Debian's lynx package (.ci/run does)`)
  }
  dir = mkdtempSync(path.join(tmpdir(), 'portal-lynx-'))
  // Cookies accepted without a prompt, kept in memory; pages in English.
  writeFileSync(path.join(dir, 'lynx.cfg'), 'ACCEPT_ALL_COOKIES:TRUE\nPREFERRED_LANGUAGE:en\n')
})

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** lynx's -cmd_script format: one `key <name>` line per keystroke. */
function keystrokes(steps: Array<string | { type: string }>): string {
  const keys = steps.flatMap((step) => (typeof step === 'string' ? [step] : [...step.type]))
  return keys.map((key) => `key ${key}\n`).join('')
}

function lynx(args: string[]): Promise<{ code: number | null; screen: string }> {
  const child = spawn(
    LYNX,
    [`-cfg=${path.join(dir, 'lynx.cfg')}`, '-nopause', ...args],
    // A terminal type but no terminal: lynx reads the script, and stops at its end (stdin is empty).
    {
      env: { ...process.env, HOME: dir, TERM: 'vt100', LINES: '40', COLUMNS: '100' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let screen = ''
  child.stdout.on('data', (c: Buffer) => (screen += c.toString()))
  child.stderr.on('data', (c: Buffer) => (screen += c.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, screen })
    }),
  )
}

/** Print, "Save to a local file", clear the suggested name, type ours, Enter; then quit, and confirm. */
const saveAndQuit = (file: string) => ['p', '^J', '^U', { type: file }, '^J', 'q', 'y']

/** The page lynx saved, as it rendered it; the run must have ended well. */
function landedOn(run: { code: number | null; screen: string }, saved: string): string {
  expect(run.code, run.screen.slice(-2000)).toBe(0)
  return existsSync(saved) ? readFileSync(saved, 'utf8') : `nothing saved; the screen ended with:\n${run.screen.slice(-2000)}`
}

describe('lynx', () => {
  it('signs in with the right password through the visible form', async () => {
    const email = uniqueEmail('lynx')
    await admin.createUser(email, PASSWORD)
    const script = path.join(dir, 'sign-in.keys')
    const saved = path.join(dir, 'after-sign-in.txt')
    writeFileSync(
      script,
      keystrokes([
        'Down Arrow', // from the logo's link to the first box
        { type: email },
        'Down Arrow',
        { type: PASSWORD },
        'Down Arrow', // "Keep me signed in", left unticked
        'Down Arrow', // the Login button
        '^J',
        ...saveAndQuit(saved),
      ]),
    )
    // The page lynx landed on after the sign-in, as it rendered it.
    const page = landedOn(await lynx([`-cmd_script=${script}`, `${portal.url}/`]), saved)
    expect(page).toContain('You are signed in')
    expect(page).toContain(`Signed in as ${email}`)
  })

  it('creates an account through the visible form, and the verification email goes out', async () => {
    const email = uniqueEmail('lynx-sign-up')
    const script = path.join(dir, 'sign-up.keys')
    const saved = path.join(dir, 'after-sign-up.txt')
    writeFileSync(
      script,
      keystrokes([
        'Down Arrow', // from the logo's link to the first box
        { type: email },
        'Down Arrow',
        { type: PASSWORD },
        'Down Arrow', // "Confirm password"
        { type: PASSWORD },
        'Down Arrow', // the Create account button
        '^J',
        ...saveAndQuit(saved),
      ]),
    )
    const page = landedOn(await lynx([`-cmd_script=${script}`, `${signUpPortal.url}/sign-up`]), saved)
    expect(page).toContain('Check your email to finish creating your account')
    expect((await admin.emailed(email, 'VERIFY_EMAIL')).email).toBe(email)
  })
})

describe('w3m', () => {
  it('shows each label apart from the control beside it', () => {
    const dump = execFileSync('/usr/bin/w3m', ['-dump', '-cols', '80', '-o', 'accept_language=en', `${portal.url}/`], { encoding: 'utf8' })
    const lines = dump.split('\n').map((line) => line.trim())
    expect(lines).toContain('Email [                    ]')
    expect(lines).toContain('[ ]Keep me signed in')
    expect(lines).toContain('Login')
    expect(lines).toContain('English Français')
  })
})
