import type { TestProject } from 'vitest/node'
import { testEmulator } from '../../dev/emulator'
import { startSharedPortal } from './shared-portal'

/**
 * One Auth emulator and one portal with the default settings for the whole vitest run; tests reach
 * them through inject('emulator') and inject('portal'). A file that needs other settings, or reads
 * the portal's output, starts its own (ownPortal in tests/support/portal.ts). Sessions live in one
 * SQLite file that every portal of the run and the test workers share (tests/support/session-cookie.ts).
 */
export default async function setup(project: TestProject) {
  const emulator = await testEmulator()
  const portal = await startSharedPortal(emulator)
  project.provide('emulator', { origin: emulator.origin, host: emulator.host, projectId: emulator.projectId })
  project.provide('portal', { url: portal.url, sessionStorePath: portal.sessionStorePath })
  return async () => {
    await portal.stop()
    await emulator.stop()
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    emulator: { origin: string; host: string; projectId: string }
    /** The shared portal (startSharedPortal): default settings, per-address limits raised. */
    portal: { url: string; sessionStorePath: string }
  }
}
