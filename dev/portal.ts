import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { getFreePort, waitFor } from './ports'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const SERVER_ENTRY = path.join(root, 'build/http/main.js')
/** As `npm run serve` and the Dockerfile run it (ADR 013, ADR 064; dev/portal.test.ts checks they agree). */
export const SERVER_NODE_OPTIONS = '--max-old-space-size=192 --max-semi-space-size=4 --v8-pool-size=2'
export const SERVER_ENV = { NODE_OPTIONS: SERVER_NODE_OPTIONS, MALLOC_ARENA_MAX: '2' }
/** V8's own flags, which NODE_OPTIONS refuses: on node's command line before the entry, as the image's CMD has them (ADR 084). */
export const SERVER_NODE_ARGS = ['--heap-growing-percent=10', '--no-sparkplug', '--no-maglev']
/** `node` and its arguments to start the production build. */
export const SERVER_ARGS = [...SERVER_NODE_ARGS, SERVER_ENTRY]

export interface Portal {
  url: string
  port: number
  /** Everything the process printed (JSON log lines), for tests that inspect logs. */
  output(): string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** Starts the production build (`npm run serve`'s entry) with the given environment. */
/** `echo`: copy the portal's output to ours (a function: decided as each line comes). */
export async function startPortal(
  env: Record<string, string> = {},
  options: { echo?: boolean | (() => boolean) } = {},
): Promise<Portal> {
  if (!existsSync(SERVER_ENTRY)) throw new Error('No build found: run `npm run build` first')
  const port = env.PORT ? Number(env.PORT) : await getFreePort()
  const child = spawn(process.execPath, SERVER_ARGS, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      ...SERVER_ENV,
      PLATFORM: 'test',
      HOST: '127.0.0.1',
      PUBLIC_URL: `http://localhost:${port}`,
      // A test portal keeps its sessions in memory unless the test names a file (or Redis).
      SESSION_STORE_PATH: ':memory:',
      ...env,
      PORT: String(port),
    },
  })
  let output = ''
  const collect = (c: Buffer) => {
    output += c.toString()
    if (typeof options.echo === 'function' ? options.echo() : options.echo) process.stdout.write(c)
  }
  child.stdout.on('data', collect)
  child.stderr.on('data', collect)
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = `http://localhost:${port}`
  // An exit ends the wait too (waitFor takes a throwing check for "not yet"): a refused start fails at once.
  // A start takes a second on an idle machine and half a minute on a crowded one: patience, as for the emulator.
  await waitFor('the portal', async () => child.exitCode !== null || (await fetch(`${url}/healthz`)).ok, 120_000).catch(
    (error: Error) => {
      child.kill('SIGKILL')
      throw new Error(`${error.message}\n${output}`)
    },
  )
  if (child.exitCode !== null) throw new Error(`the portal exited with ${child.exitCode}:\n${output}`)
  return {
    url,
    port,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode
      child.kill(signal)
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      const code = await exited
      clearTimeout(timer)
      return code
    },
  }
}
