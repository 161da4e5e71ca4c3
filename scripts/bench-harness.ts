/**
 * The load tools of `npm run bench` (scripts/bench.ts): its servers as child processes, stopped
 * on exit, error or Ctrl-C; autocannon runs; resident memory; the figures' formatting.
 */
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { getFreePort, waitFor } from '../dev/ports'
import { SERVER_ENV } from '../dev/portal'

export const CONNECTIONS = 10
export const DURATION_S = 5
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

// autocannon ships no types; this is the part of its result the report reads.
interface LoadResult {
  requests: { average: number }
  latency: { p50: number; p99: number }
  errors: number
  non2xx: number
  statusCodeStats: Record<string, { count: number }>
}
interface Request {
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
}
interface LoadOptions extends Request {
  url: string
  connections: number
  duration: number
  /** Each connection sends these in turn, over and over. */
  requests?: Array<Request & { path: string }>
}
export const autocannon = createRequire(import.meta.url)('autocannon') as (options: LoadOptions) => Promise<LoadResult>

/** Everything started here, stopped in reverse order on exit, error or Ctrl-C. */
export const cleanups: Array<() => Promise<void>> = []
export async function cleanup() {
  for (const stop of cleanups.splice(0).reverse()) await stop().catch(() => undefined)
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanup().then(() => process.exit(130)))

/** A node child on its own port; we spawn it ourselves (not startPortal) to know its pid for RSS. */
export async function startServer(name: string, args: string[], env: Record<string, string>, readyPath: string) {
  const port = await getFreePort()
  const settings = { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...SERVER_ENV, ...env, PORT: String(port) }
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    // An empty value leaves the variable out (the old settings' portal has no MALLOC_ARENA_MAX).
    env: Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== '')),
  })
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    await exited
    clearTimeout(timer)
  })
  const origin = `http://127.0.0.1:${port}`
  await waitFor(name, async () => {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output}`)
    return (await fetch(`${origin}${readyPath}`)).ok
  }, 30_000)
  return { origin, pid: child.pid!, output: () => output }
}

/** Resident memory now, or its peak (VmHWM) since start or since resetPeak. */
export function rssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  return Number(kb) / 1024
}

/** Linux's own reset of VmHWM to the current RSS (proc(5), clear_refs). */
export function resetPeak(pid: number) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5')
}

/** autocannon records whole milliseconds: 0 means under one. */
export const ms = (value: number) => (value === 0 ? '<1' : value.toFixed(0))

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? NaN
}

export interface Row {
  name: string
  rps: number
  p50: number
  p99: number
  errors: number
}

export async function measure(name: string, options: Omit<LoadOptions, 'connections' | 'duration'>, expected?: number): Promise<Row> {
  const result = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION_S })
  const answered = Object.values(result.statusCodeStats).reduce((n, s) => n + s.count, 0)
  // The wrong-password post answers 400 by design (docs/security.md, Forms): there, anything else is the error.
  const unexpected = expected === undefined ? result.non2xx : answered - (result.statusCodeStats[expected]?.count ?? 0)
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + unexpected }
}
