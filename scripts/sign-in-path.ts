/**
 * `npm run sign-in-path`: the files of app/ whose code runs for one password sign-in (`POST /`, a redirect
 * posted, no second factor), measured, not read: the production build runs under V8's precise coverage
 * against the Auth emulator, the functions that ran for that one request are mapped back to their source
 * files through the server bundle's source map, and the files are printed with the functions that ran.
 * Three sign-ins come first, so that caches are filled and lazy start-up is over (docs/sign-in-path.md).
 */
import { readFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { emulatorAdmin, startEmulator, uniqueEmail } from '../dev/emulator'
import { getFreePort } from '../dev/ports'
import { SERVER_NODE_OPTIONS, startPortal } from '../dev/portal'
import { HttpBrowser } from '../tests/support/http-browser'

const BUNDLE = path.resolve('build/server/index.js')
const APP = path.resolve('app')
const PASSWORD = 'Sign-in-path-2026'

interface Coverage {
  result: { url: string; functions: { functionName: string; ranges: { startOffset: number; count: number }[] }[] }[]
}

/** A Chrome DevTools Protocol session over the inspector's WebSocket. */
async function inspect(port: number) {
  const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[]
  const socket = new WebSocket(target!.webSocketDebuggerUrl)
  await new Promise((resolve, reject) => {
    socket.onopen = resolve
    socket.onerror = reject
  })
  let id = 0
  const waiting = new Map<number, (result: unknown) => void>()
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: unknown }
    if (message.id !== undefined) waiting.get(message.id)?.(message.error ? Promise.reject(message.error) : message.result)
  }
  return {
    send: <T>(method: string, params: object = {}) =>
      new Promise<T>((resolve) => {
        waiting.set(++id, resolve as (result: unknown) => void)
        socket.send(JSON.stringify({ id, method, params }))
      }),
    close: () => socket.close(),
  }
}

const emulator = await startEmulator()
const inspectorPort = await getFreePort()
const portal = await startPortal({
  FIREBASE_AUTH_EMULATOR_HOST: emulator.host,
  FIREBASE_PROJECT_ID: emulator.projectId,
  LOG_LEVEL: 'warn',
  NODE_OPTIONS: `${SERVER_NODE_OPTIONS} --inspect=127.0.0.1:${inspectorPort}`,
})
try {
  const email = uniqueEmail('sign-in-path')
  await emulatorAdmin(emulator).createUser(email, PASSWORD)
  const fields = { email, password: PASSWORD, redirect: `${portal.url}/account` }
  const signIn = async (browser: HttpBrowser) => {
    const res = await browser.submit('/?index', fields)
    if (res.headers.get('location') !== fields.redirect) throw new Error(`the sign-in answered ${res.status}`)
  }
  const devtools = await inspect(inspectorPort)
  await devtools.send('Profiler.enable')
  await devtools.send('Profiler.startPreciseCoverage', { callCount: true, detailed: false })
  for (let i = 0; i < 3; i++) await signIn(await new HttpBrowser(portal.url).load('/'))
  const browser = await new HttpBrowser(portal.url).load('/')
  // Taking the coverage resets its counts: what the next take reports ran for the sign-in alone.
  await devtools.send('Profiler.takePreciseCoverage')
  await signIn(browser)
  const coverage = await devtools.send<Coverage>('Profiler.takePreciseCoverage')
  devtools.close()

  const bundle = readFileSync(BUNDLE, 'utf8')
  const map = new SourceMap(JSON.parse(readFileSync(`${BUNDLE}.map`, 'utf8')))
  const lineStarts = [0]
  for (let i = 0; i < bundle.length; i++) if (bundle[i] === '\n') lineStarts.push(i + 1)
  const sourceOf = (offset: number) => {
    let low = 0
    let high = lineStarts.length - 1
    while (low < high) {
      const mid = (low + high + 1) >> 1
      if (lineStarts[mid]! <= offset) low = mid
      else high = mid - 1
    }
    // The nearest mapping on the function's own line: the bundler's export getters (`action: () => action$21`)
    // have none, and the mapping before them is another module's.
    const lineEnd = (lineStarts[low + 1] ?? bundle.length) - lineStarts[low]!
    for (const column of [offset - lineStarts[low]!, lineEnd]) {
      const entry = map.findEntry(low, column)
      if ('originalSource' in entry && entry.generatedLine === low) return entry.originalSource
    }
    return null
  }
  const ran = new Map<string, Set<string>>()
  /** Functions of the bundler's own (export getters, helpers), with no line of app/ behind them. */
  const unmapped: string[] = []
  for (const script of coverage.result.filter((s) => s.url.endsWith('build/server/index.js'))) {
    for (const fn of script.functions) {
      const [whole] = fn.ranges
      if (!whole || whole.count === 0) continue
      const source = sourceOf(whole.startOffset)
      if (!source) unmapped.push(fn.functionName || '(anonymous)')
      const file = source && path.relative(APP, fileURLToPath(new URL(source, pathToFileURL(BUNDLE))))
      if (!file || file.startsWith('..')) continue
      ran.set(file, (ran.get(file) ?? new Set()).add(fn.functionName || '(anonymous)'))
    }
  }
  const files = [...ran].sort(([a], [b]) => a.localeCompare(b))
  console.log(`Files of app/ whose code ran for one password sign-in (POST /, a redirect posted):\n`)
  for (const [file, names] of files) console.log(`  ${file.padEnd(40)} ${[...names].slice(0, 6).join(', ')}${names.size > 6 ? ', …' : ''}`)
  console.log(`\n${unmapped.length} functions of the bundle's own ran too: ${[...new Set(unmapped)].join(', ')}`)
  console.log(`\n${files.length} files ran (the bound docs/sign-in-path.md keeps: 25)`)
} finally {
  await portal.stop()
  await emulator.stop()
}
