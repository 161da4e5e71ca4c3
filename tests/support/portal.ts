import { afterAll, beforeAll, inject } from 'vitest'
import { startPortal, type Portal } from '../../dev/portal'
import { getFreePort } from '../../dev/ports'

type Settings = Record<string, string>

export interface OwnPortal extends Portal {
  /** Its /metrics, on the port of its own it serves them on (with `{ metrics: true }`). */
  readonly metricsUrl: string
}

/**
 * A portal of this file's (or describe block's) own, on the test emulator with `settings` on top:
 * started before its tests and stopped after them. `settings` may be a function, for values an
 * earlier beforeAll makes (a loopback identity service's host). Until it has started, reading it
 * throws; a start that fails fails every test of the block with its reason.
 */
export function ownPortal(
  settings: Settings | (() => Settings | Promise<Settings>) = {},
  options: { metrics?: boolean } = {},
): OwnPortal {
  let started: Portal | undefined
  let metricsUrl = ''
  beforeAll(async () => {
    const own = { ...(typeof settings === 'function' ? await settings() : settings) }
    if (options.metrics) {
      const metricsPort = await getFreePort()
      metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
      own.METRICS_PORT = String(metricsPort)
    }
    started = await startOnEmulator(own)
  })
  afterAll(async () => {
    await started?.stop()
  })
  const current = () => {
    if (!started) throw new Error('the portal has not started (see the beforeAll error above)')
    return started
  }
  return {
    get url() {
      return current().url
    },
    get port() {
      return current().port
    },
    get metricsUrl() {
      current()
      if (!metricsUrl) throw new Error('this portal serves no metrics: ask for { metrics: true }')
      return metricsUrl
    },
    output: () => current().output(),
    stop: (signal) => current().stop(signal),
  }
}

/** A portal on the test emulator, sharing the run's session store, with `settings` on top; the caller stops it. */
export function startOnEmulator(settings: Settings = {}): Promise<Portal> {
  const emulator = inject('emulator')
  return startPortal({
    FIREBASE_AUTH_EMULATOR_HOST: emulator.host,
    FIREBASE_PROJECT_ID: emulator.projectId,
    SESSION_STORE_PATH: inject('portal').sessionStorePath,
    ...settings,
  })
}

/** The portal's log as it printed it: its JSON lines, parsed. */
export function logLines<Line = Record<string, unknown>>(portal: Pick<Portal, 'output'>): Line[] {
  return portal
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line)
}
