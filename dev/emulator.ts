import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { emulatorDataArgs, restoreRevocations, stillExporting } from './emulator-data'
import { getFreePort, waitFor } from './ports'

/**
 * The real Firebase Auth emulator from firebase-tools, on free ports with its own `demo-*`
 * project, so parallel runs never clash. Used by `npm start`, the test set-ups and the benchmark.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const firebaseBin = path.join(root, 'node_modules/firebase-tools/lib/bin/firebase.js')
export const EMULATOR_API_KEY = 'demo-api-key'

export interface Emulator {
  /** `http://127.0.0.1:PORT` */
  origin: string
  /** `127.0.0.1:PORT`, the form FIREBASE_AUTH_EMULATOR_HOST takes */
  host: string
  projectId: string
  stop(): Promise<void>
}

/**
 * Starts the Firebase Auth emulator. With `dataDir`, its accounts are imported from there when a
 * previous run exported them, and exported there when it stops (`npm start` keeps its demo accounts,
 * and so the sessions made for them, across its own restarts).
 */
export async function startEmulator(
  options: { projectId?: string; port?: number; quiet?: boolean; dataDir?: string } = {},
  attempt = 1,
): Promise<Emulator> {
  const projectId = options.projectId ?? `demo-test-${process.pid}-${Date.now().toString(36)}`
  if (!projectId.startsWith('demo-')) throw new Error('the emulator project id must start with demo-')
  const [port, hub, logging] = [options.port ?? (await getFreePort()), await getFreePort(), await getFreePort()]
  const dir = mkdtempSync(path.join(tmpdir(), 'auth-emulator-'))
  writeFileSync(
    path.join(dir, 'firebase.json'),
    JSON.stringify({
      emulators: {
        auth: { host: '127.0.0.1', port },
        hub: { host: '127.0.0.1', port: hub },
        logging: { host: '127.0.0.1', port: logging },
        ui: { enabled: false },
        singleProjectMode: true,
      },
    }),
  )
  const dataDir = options.dataDir && path.resolve(options.dataDir)
  if (dataDir) await waitFor('the last run to finish saving its accounts', async () => !stillExporting(dataDir), 60_000)
  const data = dataDir ? emulatorDataArgs(dataDir) : []
  const child = spawn(process.execPath, [firebaseBin, 'emulators:start', '--only', 'auth', '--project', projectId, ...data], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FIREBASE_CLI_DISABLE_UPDATE_CHECK: 'true', NO_UPDATE_NOTIFIER: '1' },
  })
  let output = ''
  const collect = (chunk: Buffer) => {
    output += chunk.toString()
    if (output.length > 20_000) output = output.slice(-20_000)
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let dead = false
  void exited.then(() => (dead = true))

  const origin = `http://127.0.0.1:${port}`
  try {
    // firebase-tools takes seconds to start on an idle machine, minutes on a crowded one: patience, never
    // a skip. An exit ends the wait at once (waitFor takes a throwing check for "not yet").
    await waitFor('the Firebase Auth emulator', async () => {
      if (dead) return true
      const res = await fetch(`${origin}/`)
      // Its own answer, not just any server's: another process may have bound the port first.
      return res.ok && (await res.json().catch(() => null))?.authEmulator?.ready === true
    }, 180_000)
    if (dead) throw new Error('the Firebase Auth emulator exited')
    if (dataDir) await restoreRevocations(origin, projectId, dataDir)
  } catch (error) {
    await stopChild(child, exited)
    rmSync(dir, { recursive: true, force: true })
    // A port drawn here can be taken by another process before the emulator binds it: draw again.
    if (dead && options.port === undefined && attempt < 3) return startEmulator(options, attempt + 1)
    throw new Error(`${(error as Error).message}\n${output}`)
  }

  return {
    origin,
    host: `127.0.0.1:${port}`,
    projectId,
    async stop() {
      // Saving the accounts on the way out may take a while on a busy machine: a kill then would lose them.
      await stopChild(child, exited, dataDir ? 60_000 : 8_000)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function stopChild(child: ChildProcess, exited: Promise<unknown>, graceMs = 8_000) {
  if (child.exitCode !== null || child.pid === undefined) return
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig)
    } catch {
      /* already gone */
    }
  }
  signal('SIGINT')
  const timer = setTimeout(() => signal('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

/**
 * The emulator a test run uses: the one `npm test` started for its integration and browser tests
 * (TEST_EMULATOR_ORIGIN and TEST_EMULATOR_PROJECT_ID; `stop` leaves it to `npm test`), or else one of
 * the run's own.
 */
export async function testEmulator(): Promise<Emulator> {
  const { TEST_EMULATOR_ORIGIN: origin, TEST_EMULATOR_PROJECT_ID: projectId } = process.env
  if (origin && projectId) return { origin, host: new URL(origin).host, projectId, stop: async () => {} }
  return startEmulator()
}

/** An email the emulator "sent", from its documented `…/oobCodes` endpoint. */
export interface OobCode {
  email: string
  oobCode: string
  oobLink: string
  requestType: string
}

/** Emulator-only administration, as Firebase documents it. */
export function emulatorAdmin(emulator: Pick<Emulator, 'origin' | 'projectId'>) {
  const api = `${emulator.origin}/identitytoolkit.googleapis.com/v1`
  const owner = { Authorization: 'Bearer owner', 'Content-Type': 'application/json' }
  async function call<T>(url: string, init: RequestInit): Promise<T> {
    const res = await fetch(url, init)
    const body = await res.text()
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url.replace(/key=[^&]*/, 'key=…')} answered ${res.status}: ${body}`)
    return (body ? JSON.parse(body) : {}) as T
  }
  async function verificationCodes(): Promise<Array<{ code: string; phoneNumber: string; sessionInfo: string }>> {
    const body = await call<{ verificationCodes?: [] }>(
      `${emulator.origin}/emulator/v1/projects/${emulator.projectId}/verificationCodes`,
      { method: 'GET' },
    )
    return body.verificationCodes ?? []
  }
  async function oobCodes(): Promise<OobCode[]> {
    const body = await call<{ oobCodes?: [] }>(`${emulator.origin}/emulator/v1/projects/${emulator.projectId}/oobCodes`, {
      method: 'GET',
    })
    return body.oobCodes ?? []
  }
  /** See `emailed` below. */
  async function emailed(email: string, requestType: string, { after = 0, timeoutMs = 15_000 } = {}): Promise<OobCode> {
    let found: OobCode[] = []
    await waitFor(
      `a ${requestType} email to ${email}`,
      async () => {
        found = (await oobCodes()).filter((c) => c.email === email && c.requestType === requestType)
        return found.length > after
      },
      timeoutMs,
    )
    return found.at(-1)!
  }
  return {
    async createUser(email: string, password: string): Promise<{ localId: string; idToken: string; refreshToken: string }> {
      return call(`${api}/accounts:signUp?key=${EMULATOR_API_KEY}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email, password, returnSecureToken: true }),
      })
    },
    async disableUser(localId: string) {
      await call(`${api}/projects/${emulator.projectId}/accounts:update`, {
        method: 'POST',
        headers: owner,
        body: JSON.stringify({ localId, disableUser: true }),
      })
    },
    /** Every email the emulator "sent", oldest first. */
    oobCodes,
    /**
     * The newest email of this kind (`PASSWORD_RESET`, `EMAIL_SIGNIN`, `VERIFY_EMAIL`, …) the
     * emulator "sent" to `email`, waiting up to `timeoutMs` for it: the portal sends some off the
     * response path. `after`: how many of its kind to that address come before, so that only a
     * newer one is taken.
     */
    emailed,
    /** The link of that email as the portal's own /action page (what the email template points at). */
    async emailedLink(email: string, requestType: string, portalUrl: string, options?: { after?: number }): Promise<string> {
      return `${portalUrl}/action${new URL((await emailed(email, requestType, options)).oobLink).search}`
    },
    /** The account's id (emulator admin lookup by email), or null when there is none. */
    async localIdOf(email: string): Promise<string | null> {
      const body = await call<{ users?: Array<{ localId: string }> }>(
        `${api}/projects/${emulator.projectId}/accounts:lookup`,
        { method: 'POST', headers: owner, body: JSON.stringify({ email: [email] }) },
      )
      return body.users?.[0]?.localId ?? null
    },
    /**
     * Enrolls SMS second factors, replacing any: `accounts:update` as the project owner with
     * `mfa.enrollments`. The emulator does not ask for a verified address here (nor at sign-in),
     * but a real project enrolls only verified ones, so the address is marked verified too.
     * For `npm start`: `await admin.enrollSms(localId, [{ phoneNumber: '+15555550100', displayName: 'Phone' }])`.
     */
    async enrollSms(
      localId: string,
      phones: Array<{ phoneNumber: string; displayName?: string; mfaEnrollmentId?: string }>,
    ): Promise<Array<{ mfaEnrollmentId: string; phoneNumber: string; displayName?: string }>> {
      const enrollments = phones.map((p, i) => ({
        phoneInfo: p.phoneNumber,
        displayName: p.displayName,
        mfaEnrollmentId: p.mfaEnrollmentId ?? `sms-${i + 1}-${Math.random().toString(36).slice(2, 10)}`,
      }))
      await call(`${api}/projects/${emulator.projectId}/accounts:update`, {
        method: 'POST',
        headers: owner,
        body: JSON.stringify({ localId, emailVerified: true, mfa: { enrollments } }),
      })
      return enrollments.map((e) => ({
        mfaEnrollmentId: e.mfaEnrollmentId,
        phoneNumber: e.phoneInfo,
        displayName: e.displayName,
      }))
    },
    /** Marks the address verified, as opening the verification email would (the service enrols factors only then). */
    async verifyEmail(localId: string) {
      await call(`${api}/projects/${emulator.projectId}/accounts:update`, {
        method: 'POST',
        headers: owner,
        body: JSON.stringify({ localId, emailVerified: true }),
      })
    },
    /** The SMS codes the emulator "sent", oldest first (a code is gone once spent). */
    verificationCodes,
    /** The last SMS code sent to this number once more than `after` were, waiting up to 5 s; null if none came. */
    async lastSmsCode(phoneNumber: string, after = 0): Promise<string | null> {
      for (let i = 0; i < 50; i++) {
        const codes = (await verificationCodes()).filter((c) => c.phoneNumber === phoneNumber)
        if (codes.length > after) return codes.at(-1)!.code
        await new Promise((r) => setTimeout(r, 100))
      }
      return null
    },
    async clearAccounts() {
      await call(`${emulator.origin}/emulator/v1/projects/${emulator.projectId}/accounts`, { method: 'DELETE' })
    },
  }
}

/** A unique address per test, so tests never share an account. */
export function uniqueEmail(tag = 'user'): string {
  return `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`
}

/**
 * Where this process's phone numbers start: a random place among 10 million, then one after
 * another: two numbers of one process never clash, and two processes' short runs almost never meet
 * (with a random number each time, the ~60 numbers of a test run had a clash about once in 5,000 runs).
 */
let nextPhone = Math.floor(Math.random() * 1e7)

/** A phone number no other test uses, so the emulator's code list is read without a clash. */
export function uniquePhone(): string {
  nextPhone = (nextPhone + 1) % 1e7
  return `+1555${String(nextPhone).padStart(7, '0')}`
}
