import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import net from 'node:net'
import { getFreePort, waitFor } from '../../dev/ports'

const REDIS_BIN = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find(existsSync) ?? 'redis-server'
/** No persistence: a test's Redis starts empty and leaves no file behind. */
const EPHEMERAL = ['--save', '', '--appendonly', 'no']

/** A redis-server of a test's own on loopback. A missing binary fails loudly, with its output. */
export interface TestRedis {
  port: number
  url: string
  /** Kills it (SIGKILL: a crash, as far as clients can tell); resolves once it has exited. */
  stop(): Promise<void>
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>
  /** Stops it answering (SIGSTOP: connections stay open, nothing comes back), and lets it go on (SIGCONT), its data kept. */
  freeze(): void
  thaw(): void
}

/** Whether a Redis answers PING on `port`, over a raw socket (no client library, no queue). */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.setTimeout(1_000)
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (data) => (socket.destroy(), resolve(data.toString().startsWith('+PONG'))))
    socket.once('error', () => resolve(false))
    socket.once('timeout', () => (socket.destroy(), resolve(false)))
  })
}

async function launch(port: number, args: string[]): Promise<ChildProcess> {
  const child = spawn(REDIS_BIN, [...args, '--port', String(port), '--bind', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000))
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  child.on('error', (error) => keep(Buffer.from(`${REDIS_BIN}: ${error.message}\n`)))
  await waitFor(
    `redis-server on port ${port}`,
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`redis-server exited:\n${output}`)
      return ping(port)
    },
    10_000,
  ).catch((error: Error) => {
    child.kill('SIGKILL')
    throw new Error(`${error.message}\n${output}`)
  })
  return child
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

/** Starts a Redis with `args` (e.g. deploy/compose.yaml's), never persisting, on a free port. */
export async function startRedis(args: string[] = []): Promise<TestRedis> {
  // Last, so that it wins over `args` that persist (deploy/compose.yaml's): a test's Redis writes no file.
  const all = [...args, ...EPHEMERAL]
  let port = await getFreePort()
  let child: ChildProcess
  try {
    child = await launch(port, all)
  } catch {
    // The free port was taken between the probe and the bind: once more on another.
    port = await getFreePort()
    child = await launch(port, all)
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop: () => kill(child),
    async restart() {
      await kill(child)
      child = await launch(port, all)
    },
    freeze: () => void child.kill('SIGSTOP'),
    thaw: () => void child.kill('SIGCONT'),
  }
}
