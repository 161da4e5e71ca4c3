import { existsSync, mkdirSync, readFileSync } from 'node:fs'
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
