import { existsSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { waitFor } from '../../dev/ports'
import { SERVER_ENTRY, startPortal, type Portal } from '../../dev/portal'
import { ownPortal } from '../support/portal'
import { type TestRedis, startRedis } from '../support/redis'

/**
 * /readyz on the production build (ADR 029): 200 while this process can serve, whatever Redis and
 * the identity service do (their state is in the body and in metrics); never an identity call per
 * probe; an answer within 1 s.
 */

const emu = inject('emulator')

interface Report {
  status: string
  dependencies: Record<string, string>
}

/** A stand-in identity service: answers every project read at once (or never), and counts them. */
async function fakeIdentity(mode: 'answer' | 'hang') {
  let projectReads = 0
  const server = http.createServer((req, res) => {
    if (mode === 'hang') return
    if (req.url?.includes('/v1/projects')) projectReads++
    const body = req.url?.includes('recaptchaConfig')
      ? { recaptchaEnforcementState: [] }
      : { projectId: '1', authorizedDomains: ['localhost'] }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    projectReads: () => projectReads,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

async function readyz(portal: Portal): Promise<{ status: number; body: Report; ms: number }> {
  const started = Date.now()
  const res = await fetch(`${portal.url}/readyz`, { signal: AbortSignal.timeout(10_000) })
  const body = (await res.json()) as Report
  return { status: res.status, body, ms: Date.now() - started }
}

describe('/readyz while Redis is down', () => {
  let redis: TestRedis | undefined
  beforeAll(async () => {
    redis = await startRedis()
  })
  afterAll(async () => {
    await redis?.stop()
  })
  const portal = ownPortal(() => ({ REDIS_URL: redis!.url }), { metrics: true })

  it('stays 200 and says redis is down (body and metrics)', async () => {
    await waitFor('redis up in /readyz', async () => (await readyz(portal)).status === 200, 15_000)
    // The limits are counted in Redis until it goes, then in this process's memory.
    expect(await (await fetch(portal.metricsUrl)).text()).toMatch(/^portal_rate_limit_store\{mode="redis"\} 1$/m)
    await redis!.stop()
    const seen: Array<{ status: number; body: Report }> = []
    await waitFor(
      'redis down in /readyz',
      async () => {
        seen.push(await readyz(portal))
        return /"redis":"(down|fail)"/.test(JSON.stringify(seen.at(-1)?.body))
      },
      20_000,
    )
    expect(seen.map((answer) => answer.status)).toEqual(seen.map(() => 200))
    expect(seen.at(-1)?.body).toEqual({ status: 'ok', dependencies: { identity: 'up', redis: 'down' } })
    const metrics = await (await fetch(portal.metricsUrl)).text()
    expect(metrics).toMatch(/^portal_dependency_up\{dependency="redis"\} 0$/m)
    expect(metrics).toMatch(/^portal_dependency_up\{dependency="identity"\} 1$/m)
    await waitFor('the memory fallback in the metrics', async () =>
      /^portal_rate_limit_store\{mode="memory"\} 1$/m.test(await (await fetch(portal.metricsUrl)).text()), 10_000)
  })
})

describe('/readyz and the identity service', () => {
  let counting: Awaited<ReturnType<typeof fakeIdentity>> | undefined
  let hung: Awaited<ReturnType<typeof fakeIdentity>> | undefined
  let countingPortal: Portal | undefined
  let hungPortal: Portal | undefined
  let setupError: Error | undefined

  beforeAll(async () => {
    try {
      if (!existsSync(SERVER_ENTRY)) throw new Error(`${SERVER_ENTRY} is missing: run \`npm run build\` first`)
      ;[counting, hung] = await Promise.all([fakeIdentity('answer'), fakeIdentity('hang')])
      ;[countingPortal, hungPortal] = await Promise.all([
        startPortal({ FIREBASE_AUTH_EMULATOR_HOST: counting.host, FIREBASE_PROJECT_ID: emu.projectId }),
        startPortal({
          FIREBASE_AUTH_EMULATOR_HOST: hung.host,
          FIREBASE_PROJECT_ID: emu.projectId,
          IDENTITY_TIMEOUT_MS: '5000',
        }),
      ])
    } catch (error) {
      setupError = error as Error
    }
  })
  afterAll(async () => {
    await Promise.all([countingPortal?.stop(), hungPortal?.stop()])
    await Promise.all([counting?.close(), hung?.close()])
  })

  it('300 probes cost at most 2 identity calls', async () => {
    if (setupError) throw setupError
    const before = counting!.projectReads()
    const statuses: number[] = []
    // 300 probes, 30 at a time, as load balancers and a curious stranger would send them.
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(Array.from({ length: 30 }, () => readyz(countingPortal!)))
      statuses.push(...answers.map((a) => a.status))
    }
    expect(new Set(statuses)).toEqual(new Set([200]))
    expect(counting!.projectReads() - before).toBeLessThanOrEqual(2)
  })

  it('answers within 1 s while the identity service hangs, 200 with the identity state in the body', async () => {
    if (setupError) throw setupError
    for (let i = 0; i < 3; i++) {
      const answer = await readyz(hungPortal!)
      expect(answer.status).toBe(200)
      expect(answer.ms).toBeLessThan(1_000)
      expect(['unknown', 'down']).toContain(answer.body.dependencies.identity)
    }
    await waitFor(
      'identity down in /readyz',
      async () => (await readyz(hungPortal!)).body.dependencies.identity === 'down',
      15_000,
    )
  })
})
