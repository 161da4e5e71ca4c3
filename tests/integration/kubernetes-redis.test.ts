import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis'
import { parseAllDocuments } from 'yaml'
import { afterAll, describe, expect, it } from 'vitest'
import { getFreePort, waitFor } from '../../dev/ports'

/**
 * The start-up scripts of deploy/kubernetes/redis.yaml, run as its three pods would run them, with
 * Debian's redis-server and redis-sentinel: each "pod" is a loopback address of its own
 * (127.0.0.2–4), with the same ports, as pods have.
 */
const manifest = parseAllDocuments(readFileSync('deploy/kubernetes/redis.yaml', 'utf8')).map((doc) => doc.toJS())
const configMap = (name: string) => manifest.find((m) => m.kind === 'ConfigMap' && m.metadata.name === name).data as Record<string, string>
const PODS = ['127.0.0.2', '127.0.0.3', '127.0.0.4']
const root = mkdtempSync(path.join(tmpdir(), 'k8s-redis-'))
const scripts = path.join(root, 'scripts')
mkdirSync(scripts)
for (const [file, text] of Object.entries(configMap('auth-portal-redis'))) writeFileSync(path.join(scripts, file), text)

const children: ChildProcess[] = []
afterAll(() => {
  children.forEach((child) => child.kill('SIGKILL'))
  rmSync(root, { recursive: true, force: true })
})

type Settings = Record<string, string> & Record<'REDIS_PORT' | 'SENTINEL_PORT' | 'MASTER_NAME', string>

async function settings(): Promise<Settings> {
  const ports = { REDIS_PORT: String(await getFreePort()), SENTINEL_PORT: String(await getFreePort()) }
  const base = configMap('auth-portal-redis-settings')
  return { ...base, ...ports, MASTER_NAME: base.MASTER_NAME!, FIRST: PODS[0]!, SENTINELS: PODS.join(' ') }
}

function startPod(env: Record<string, string>, pod: string, script: 'redis.sh' | 'sentinel.sh') {
  const dir = path.join(root, pod)
  mkdirSync(dir, { recursive: true })
  const child = spawn('sh', [path.join(scripts, script)], {
    env: { PATH: process.env.PATH, ...env, SELF: pod, BIND_ADDRESS: pod, DATA_DIR: dir, CONFIG_DIR: dir },
    stdio: ['ignore', openSync(path.join(dir, `${script}.log`), 'a'), openSync(path.join(dir, `${script}.log`), 'a')],
  })
  children.push(child)
  return child
}

async function ask<T>(host: string, port: string, ...command: string[]): Promise<T | null> {
  const client = new Redis(Number(port), host, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
  client.on('error', () => undefined)
  try {
    await client.connect()
    return (await client.call(command[0]!, ...command.slice(1))) as T
  } catch {
    return null
  } finally {
    client.disconnect()
  }
}
const role = async (env: Settings, pod: string) => (await ask<unknown[]>(pod, env.REDIS_PORT, 'ROLE'))?.[0]
const primaryNamed = async (env: Settings, pod: string) =>
  (await ask<string[]>(pod, env.SENTINEL_PORT, 'SENTINEL', 'get-master-addr-by-name', env.MASTER_NAME))?.[0]

describe("the Kubernetes base's Redis (deploy/kubernetes/redis.yaml)", () => {
  it('starts pod 0 as the primary, fails over to a replica, and brings pod 0 back as its replica', async () => {
    const env = await settings()
    const redis = PODS.map((pod) => startPod(env, pod, 'redis.sh'))
    for (const pod of PODS) startPod(env, pod, 'sentinel.sh')
    await waitFor('pod 0 the primary with two replicas', async () => {
      const answer = await ask<[string, number, unknown[]]>(PODS[0]!, env.REDIS_PORT, 'ROLE')
      return answer?.[0] === 'master' && answer[2].length === 2
    }, 20_000)
    for (const pod of PODS) expect(await primaryNamed(env, pod)).toBe(PODS[0])
    // A failover needs each sentinel to know the replicas and the other sentinels (learnt through the primary).
    for (const pod of PODS) {
      await waitFor(`sentinel ${pod} to know the others`, async () => {
        const fields = (await ask<string[]>(pod, env.SENTINEL_PORT, 'SENTINEL', 'master', env.MASTER_NAME)) ?? []
        const field = (name: string) => fields[fields.indexOf(name) + 1]
        return field('num-slaves') === '2' && field('num-other-sentinels') === '2'
      }, 20_000)
    }

    // A session written as the portal writes it: acknowledged by a replica before it counts.
    expect(await ask(PODS[0]!, env.REDIS_PORT, 'SET', 'session', 'kept')).toBe('OK')
    expect(await ask<number>(PODS[0]!, env.REDIS_PORT, 'WAIT', '1', '2000')).toBeGreaterThanOrEqual(1)

    redis[0]!.kill('SIGKILL')
    // Promoted once the sentinels of the two other pods name the same replica (pod 0's may lag behind).
    // Within 45 s: 5 s to call pod 0 down, and a vote that splits on a loaded machine is held again 20 s later.
    await waitFor('the sentinels to promote a replica', async () => {
      const [a, b] = [await primaryNamed(env, PODS[1]!), await primaryNamed(env, PODS[2]!)]
      return a === b && PODS.slice(1).includes(a ?? '')
    }, 45_000)
    const promoted = (await primaryNamed(env, PODS[1]!))!
    expect(await role(env, promoted)).toBe('master')
    expect(await ask(promoted, env.REDIS_PORT, 'GET', 'session')).toBe('kept')

    // Pod 0 restarts: it asks the sentinels, and follows the new primary instead of starting as a second one.
    startPod(env, PODS[0]!, 'redis.sh')
    // From its first answer: the sentinels would turn a returning primary into a replica too, but only
    // seconds later, after it had taken writes that the replication then throws away.
    await waitFor('pod 0 to answer', async () => (await role(env, PODS[0]!)) !== undefined, 20_000)
    expect(await role(env, PODS[0]!)).toBe('slave')
    const replication = await ask<[string, string]>(PODS[0]!, env.REDIS_PORT, 'ROLE')
    expect(replication?.[1]).toBe(promoted)
    await waitFor('pod 0 in sync', async () => (await ask(PODS[0]!, env.REDIS_PORT, 'GET', 'session')) === 'kept', 20_000)
  }, 150_000)
})
