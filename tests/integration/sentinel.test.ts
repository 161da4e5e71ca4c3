import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import type { Portal } from '../../dev/portal'
import { waitFor } from '../../dev/ports'
import { browserAt } from '../support/http-browser'
import { startOnEmulator } from '../support/portal'
import { MASTER, type SentinelSet, startSentinelSet } from '../support/redis-sentinel'

/**
 * Sessions in a replicated Redis through Sentinel (REDIS_SENTINELS, ADR 063), with Debian's
 * redis-server and redis-sentinel on loopback: the primary is killed right after a sign-in; once the
 * replica is promoted, that session still opens /account, and sign-ins resume within 10 s.
 */
const admin = emulatorAdmin(inject('emulator'))
const PASSWORD = 'Sentinel-Failover-2026'

let set: SentinelSet
let portal: Portal

beforeAll(async () => {
  set = await startSentinelSet()
  portal = await startOnEmulator({ REDIS_SENTINELS: set.sentinels, REDIS_SENTINEL_MASTER: MASTER, TRUST_PROXY: '1' })
}, 60_000)

afterAll(async () => {
  await portal?.stop()
  await set?.stop()
})

const accountStatus = async (cookie: string) =>
  (await fetch(`${portal.url}/account`, { headers: { Cookie: cookie }, redirect: 'manual' })).status

describe('a failover of the sessions’ Redis', () => {
  it('keeps the session made right before it, and sign-ins resume within 10 s', async () => {
    const email = uniqueEmail('failover')
    await admin.createUser(email, PASSWORD)
    const client = await browserAt(portal.url, '198.51.100.41')
    expect((await client.signIn(email, PASSWORD, { remember: true })).status).toBe(303)
    const cookie = `session=${client.jar.get('session')}`

    set.killPrimary()
    const killed = Date.now()
    let resumed: number | null = null
    let attempts = 0
    while (Date.now() - killed < 20_000) {
      attempts++
      const other = await browserAt(portal.url, `198.51.100.${50 + (attempts % 50)}`).catch(() => null)
      if (other && (await other.signIn(email, PASSWORD, { remember: true })).status === 303) {
        resumed = Date.now() - killed
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    console.log(`sign-ins resumed ${resumed} ms after the primary was killed (${attempts} attempts)`)
    expect(resumed, 'sign-ins resumed').not.toBeNull()
    expect(resumed!).toBeLessThan(10_000)
    expect(await set.currentPrimary()).toBe(set.replicaPort)
    const statuses: number[] = []
    await waitFor('the session to open', async () => (statuses.push(await accountStatus(cookie)), statuses.at(-1) === 200), 5_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}: ${statuses.join(' ')}\n${portal.output().slice(-3_000)}`)
      },
    )
  }, 60_000)
})
