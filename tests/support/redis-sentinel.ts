import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis'
import { getFreePort, waitFor } from '../../dev/ports'

const SENTINEL_BIN = ['/usr/bin/redis-sentinel', '/usr/local/bin/redis-sentinel'].find(existsSync) ?? 'redis-sentinel'
const SERVER_BIN = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find(existsSync) ?? 'redis-server'
export const MASTER = 'portal-sessions'

/**
 * A replicated Redis on loopback as Sentinel deployments run it: a primary, a replica, and three
 * sentinels that agree (quorum 2) to promote the replica a second after the primary stops answering.
 * A missing binary fails loudly.
 */
export interface SentinelSet {
  /** `host:port` of each sentinel, as REDIS_SENTINELS takes them. */
  sentinels: string
  primaryPort: number
  replicaPort: number
  /** Kills the primary (SIGKILL: a crash). */
  killPrimary(): void
  /** The port the sentinels name as the primary now. */
  currentPrimary(): Promise<number | null>
  stop(): Promise<void>
}

export async function startSentinelSet(): Promise<SentinelSet> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sentinel-'))
  const children: ChildProcess[] = []
  const launch = (bin: string, args: string[]) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-4_000)))
    child.stderr!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-4_000)))
    child.on('error', (error) => (output += `${bin}: ${error.message}\n`))
    children.push(child)
    return () => output
  }
  const answers = async (port: number) => {
    const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    client.on('error', () => undefined)
    try {
      await client.connect()
      return (await client.ping()) === 'PONG'
    } catch {
      return false
    } finally {
      client.disconnect()
    }
  }
  const replicationUp = async (port: number) => {
    const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 })
    client.on('error', () => undefined)
    try {
      return (await client.info('replication')).includes('master_link_status:up')
    } finally {
      client.disconnect()
    }
  }
  const primaryPort = await getFreePort()
  const replicaPort = await getFreePort()
  // The replica's full sync writes an RDB file even with saving off: into the temporary directory, not the working tree.
  const common = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir]
  // No 5-s wait before the first full sync (Redis's default for diskless replication): the replica is in sync at once.
  const primaryOutput = launch(SERVER_BIN, [...common, '--port', String(primaryPort), '--repl-diskless-sync-delay', '0'])
  launch(SERVER_BIN, [...common, '--port', String(replicaPort), '--replicaof', '127.0.0.1', String(primaryPort)])
  await waitFor(`redis-server on ${primaryPort}`, () => answers(primaryPort), 10_000).catch((error: Error) => {
    throw new Error(`${error.message}\n${primaryOutput()}`)
  })
  await waitFor(`redis-server on ${replicaPort}`, () => answers(replicaPort), 10_000)
  await waitFor('the replica in sync', () => replicationUp(replicaPort), 10_000)

  const sentinelPorts = [await getFreePort(), await getFreePort(), await getFreePort()]
  for (const [i, port] of sentinelPorts.entries()) {
    // Sentinel rewrites its configuration file: one writable file each.
    const conf = path.join(dir, `sentinel-${i}.conf`)
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `sentinel monitor ${MASTER} 127.0.0.1 ${primaryPort} 2`,
        `sentinel down-after-milliseconds ${MASTER} 1000`,
        `sentinel failover-timeout ${MASTER} 5000`,
        `sentinel parallel-syncs ${MASTER} 1`,
        '',
      ].join('\n'),
    )
    const output = launch(SENTINEL_BIN, [conf])
    await waitFor(`redis-sentinel on ${port}`, () => answers(port), 10_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${output()}`)
    })
  }
  // A failover needs every sentinel to know the replica and the other sentinels (found through the
  // primary, every few seconds): until then, killing the primary would promote nothing.
  const ready = async (port: number) => {
    const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 })
    client.on('error', () => undefined)
    try {
      const fields = (await client.call('SENTINEL', 'master', MASTER)) as string[]
      const field = (name: string) => fields[fields.indexOf(name) + 1]
      return field('num-slaves') === '1' && field('num-other-sentinels') === '2'
    } catch {
      return false
    } finally {
      client.disconnect()
    }
  }
  for (const port of sentinelPorts) await waitFor(`sentinel ${port} to know the replica and the others`, () => ready(port), 20_000)
  const currentPrimary = async () => {
    const client = new Redis(sentinelPorts[0]!, '127.0.0.1', { maxRetriesPerRequest: 1 })
    client.on('error', () => undefined)
    try {
      const answer = (await client.call('SENTINEL', 'get-master-addr-by-name', MASTER)) as [string, string] | null
      return answer ? Number(answer[1]) : null
    } finally {
      client.disconnect()
    }
  }
  return {
    sentinels: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
    primaryPort,
    replicaPort,
    killPrimary: () => void children[0]!.kill('SIGKILL'),
    currentPrimary,
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve()
              child.once('exit', () => resolve())
              child.kill('SIGKILL')
            }),
        ),
      )
    },
  }
}
