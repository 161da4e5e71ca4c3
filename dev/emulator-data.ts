import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { waitFor } from './ports'

/**
 * `npm start` keeps the emulator's accounts in a folder across its own restarts: imported at start
 * when a previous run exported them, exported there when the emulator stops.
 */
export function emulatorDataArgs(dataDir: string): string[] {
  mkdirSync(dataDir, { recursive: true })
  const exported = existsSync(path.join(dataDir, 'firebase-export-metadata.json'))
  return [...(exported ? ['--import', dataDir] : []), '--export-on-exit', dataDir]
}

/**
 * Whether the emulator of an earlier run is still saving into `dataDir` (Ctrl-C returns the prompt while
 * it exports): its command line names the folder. The next start waits for it, or it would import half.
 */
export function stillExporting(dataDir: string): boolean {
  return readdirSync('/proc').some((pid) => {
    if (!/^\d+$/.test(pid)) return false
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(`--export-on-exit ${dataDir}`)
    } catch {
      return false
    }
  })
}

/**
 * An import sets each account's `validSince` to the time of the import, which revokes every session
 * made before it. Once the accounts are in, each gets its own `validSince` back (an admin
 * `accounts:update`), so the sessions of the last run open again and the logouts of all devices
 * made before it stay in force.
 */
export async function restoreRevocations(origin: string, projectId: string, dataDir: string): Promise<void> {
  const file = path.join(dataDir, 'auth_export', 'accounts.json')
  if (!existsSync(file)) return
  const { users = [] } = JSON.parse(readFileSync(file, 'utf8')) as { users?: Array<{ localId: string; validSince?: string }> }
  const api = `${origin}/identitytoolkit.googleapis.com/v1/projects/${projectId}`
  const owner = { Authorization: 'Bearer owner', 'Content-Type': 'application/json' }
  await waitFor('the emulator to import its accounts', async () => {
    const res = await fetch(`${api}/accounts:batchGet?maxResults=-1`, { headers: owner })
    return res.ok && ((await res.json()) as { users?: unknown[] }).users?.length === users.length
  }, 60_000)
  for (const { localId, validSince } of users) {
    if (!validSince) continue
    const res = await fetch(`${api}/accounts:update`, { method: 'POST', headers: owner, body: JSON.stringify({ localId, validSince }) })
    if (!res.ok) throw new Error(`restoring validSince of ${localId} answered ${res.status}: ${await res.text()}`)
  }
}
